#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark AF_PACKET receive paths (recvfrom, TPACKET_V2, TPACKET_V3) at
# fixed offered loads over a veth pair in a throwaway netns; meant to run
# inside the test VM, all in one boot: give this script and its options
# (those of ring_bench) to scripts/vm-run.sh.
#
# Default options: -r 10000,50000,200000 -d 2 (see scripts/bench/ring_bench.c).
# The program is built with cc into $CACHE/bench (run the script once on the
# host first, or it is built in /tmp inside the VM).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

src=$TOP/scripts/bench/ring_bench.c
bin=$CACHE/bench/ring_bench
cc=${CC:-cc}

# Built on the host before the VM run; inside the VM (read-only root) an
# outdated binary is rebuilt in /tmp.
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
	flags=(-O2 -Wall -Wextra -Werror)
	if ! { mkdir -p "${bin%/*}" &&
	       "$cc" "${flags[@]}" -o "$bin" "$src"; } 2>/dev/null; then
		bin=/tmp/ring_bench
		"$cc" "${flags[@]}" -o "$bin" "$src"
	fi
fi

ns=ring-bench-$$
ip netns add "$ns"
trap 'ip netns del "$ns"' EXIT
ip -n "$ns" link set lo up
ip -n "$ns" link add rb0 type veth peer name rb1
ip -n "$ns" link set rb0 up
ip -n "$ns" link set rb1 up
# Frames pass once both qdiscs are attached (carrier on, via linkwatch).
for _ in $(seq 100); do
	if ip -n "$ns" link show rb0 | grep -q "qdisc noqueue state UP" &&
	   ip -n "$ns" link show rb1 | grep -q "qdisc noqueue state UP"; then
		break
	fi
	sleep 0.1
done

echo "# $(uname -r), $(nproc) CPUs"
if [ $# -eq 0 ]; then
	set -- -r 10000,50000,200000 -d 2
fi
ip netns exec "$ns" "$bin" -i rb1 -o rb0 "$@"
