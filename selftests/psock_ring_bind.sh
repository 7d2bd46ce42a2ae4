#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_PACKET sockets whose rx ring is set up before or after bind(), and
# protocol 0 sockets that are never hooked.  Sets up a netns with one veth
# pair and runs the psock_ring_bind harness in it: its KTAP output, one
# result per case, is this test's output.
#
# Expected runtime: about 3 seconds under QEMU/TCG (2.9 s measured on two
# emulated CPUs), most of it creating the netns and the veth pair; the
# harness waits for fence frames, never for time.

# lib.sh is not followed without -x (SC1091) and sets ksft_* (SC2154).
# shellcheck disable=SC1091,SC2154
source "$(dirname "$0")"/lib.sh

BIN=$(dirname "$0")/psock_ring_bind
IF1=psrb1
IF2=psrb2

# veth drops frames until linkwatch has turned the carrier on and swapped
# the noop qdisc for noqueue.
link_ready()
{
	local dev

	for dev in "$IF1" "$IF2"; do
		ip -n "$NS" -j link show dev "$dev" |
			jq -e '.[0].operstate == "UP" and
			       .[0].qdisc == "noqueue"' >/dev/null || return 1
	done
}

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: need root"
	exit "$ksft_skip"
fi
if [[ ! -x $BIN ]]; then
	echo "SKIP: $BIN not built"
	exit "$ksft_skip"
fi
if ! command -v jq >/dev/null; then
	echo "SKIP: jq not installed"
	exit "$ksft_skip"
fi

trap defer_scopes_cleanup EXIT
# As lib.sh has it: a netns that cannot be created is a missing dependency
# (ksft_skip), in every script of this series.
setup_ns NS || exit
defer cleanup_ns "$NS"
ip -n "$NS" link add "$IF1" type veth peer name "$IF2" || exit "$ksft_fail"
ip -n "$NS" link set "$IF1" up || exit "$ksft_fail"
ip -n "$NS" link set "$IF2" up || exit "$ksft_fail"
if ! busywait "$BUSYWAIT_TIMEOUT" link_ready; then
	echo "veth pair not up"
	exit "$ksft_fail"
fi
# The fences need one backlog: no RPS on the receiving queues.
for dev in "$IF1" "$IF2"; do
	f=/sys/class/net/$dev/queues/rx-0/rps_cpus
	ip netns exec "$NS" sh -c "[ ! -e $f ] || echo 0 > $f" ||
		exit "$ksft_fail"
done

ip netns exec "$NS" env PSOCK_IF1="$IF1" PSOCK_IF2="$IF2" "$BIN"
