#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_PACKET rx rings vs. bind() ordering, PACKET_STATISTICS accounting and
# protocol 0 send-only sockets.  A netns with one veth pair; the assertions
# are in psock_ring_bind (kselftest harness, KTAP output).

# shellcheck disable=SC1091,SC2034,SC2154,SC2317,SC2329
source lib.sh

ALL_TESTS="
	test_psock_ring_bind
"

IF0=psrb0
IF1=psrb1

# The veth ends pass frames once both are up and their qdisc is attached
# (carrier on: linkwatch swaps noop for noqueue).
link_ready()
{
	local dev

	for dev in "$IF0" "$IF1"; do
		ip -n "$NS" link show dev "$dev" |
			grep -q "qdisc noqueue state UP" || return 1
	done
}

setup()
{
	setup_ns NS || { echo "cannot create a netns"; exit "$ksft_fail"; }
	defer cleanup_ns "$NS"

	# Nothing else on the wire (the test filters by EtherType anyway).
	ip netns exec "$NS" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 \
		2>/dev/null
	if ! ip -n "$NS" link add "$IF0" type veth peer name "$IF1"; then
		echo "cannot create a veth pair (CONFIG_VETH is in config)"
		exit "$ksft_fail"
	fi
	ip -n "$NS" link set "$IF0" up
	ip -n "$NS" link set "$IF1" up
	busywait "$BUSYWAIT_TIMEOUT" link_ready ||
		{ echo "veth pair not up"; exit "$ksft_fail"; }
}

test_psock_ring_bind()
{
	local rc

	RET=0
	ip netns exec "$NS" env PSOCK_IF0="$IF0" PSOCK_IF1="$IF1" \
		./psock_ring_bind
	rc=$?
	if [ "$rc" -eq "$ksft_skip" ]; then
		log_test_skip "AF_PACKET rx ring vs. bind ordering"
		return
	fi
	check_err "$rc" "psock_ring_bind failed"
	log_test "AF_PACKET rx ring vs. bind ordering"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: need root"
	exit "$ksft_skip"
fi
if [ ! -x ./psock_ring_bind ]; then
	echo "SKIP: ./psock_ring_bind not built"
	exit "$ksft_skip"
fi

trap defer_scopes_cleanup EXIT
setup
tests_run

exit "$EXIT_STATUS"
