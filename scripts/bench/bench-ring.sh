#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark AF_PACKET receive paths (recvfrom, TPACKET_V2, TPACKET_V3) at
# fixed offered loads over a veth pair in a throwaway netns; it runs
# inside the test VM, all in one boot (make bench-ring): the options are
# those of ring_bench, default -r 10000,50000,200000 -d 2 (see
# scripts/bench/ring_bench.c, built on the host by lib.sh build_helper).
# -e: any failure ends the run (there are no partial tables).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
bin=$(build_helper "$TOP/scripts/bench/ring_bench.c" -static)
[ "${1:-}" != --build ] || exit 0
bin=$(stage_helper "$bin")

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
