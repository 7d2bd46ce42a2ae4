#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IFA_F_FLUSH: an IPv4 RTM_DELADDR with IFA_F_FLUSH in IFA_FLAGS that deletes
# a primary address deletes its secondaries too, instead of promoting one.
# The single requests, their notifications and routes are ifa_flush's (a
# kselftest harness program of its own); this script empties a device:
#
# - ifa_flusher, in dump order, secondaries first and with the flag, empties
#   a device carrying N addresses in one subnet or in several subnets, with
#   the expected numbers of deleted and already gone addresses.
# - The cost of a flush of one subnet, counted (not timed) in IPv4 route
#   notifications of the test's namespace: secondaries first or with the
#   flag, no RTM_NEWROUTE and N + 2 RTM_DELROUTE (the N local routes, the
#   prefix and the broadcast route).  (In dump order each delete promotes
#   the next address and re-adds routes: quadratic, not pinned here.)
#
# On a kernel without IFA_F_FLUSH (probed with ifa_flusher -c, which
# tries RTM_NEWADDR with the bit) the flag cases SKIP.
#
# Topology: one namespace with a dummy device.
# Expected runtime: about 6 s under QEMU/TCG (idle host).

# shellcheck disable=SC1091,SC2034,SC2154,SC2317,SC2329
source lib.sh

ALL_TESTS="
	test_flusher_modes
	test_route_calls
"

: "${IFA_FLUSH_N:=20}"
N=$IFA_FLUSH_N
DEV=ifaf0

# setup_dev PROMOTE: namespace $NS with $DEV up and promote_secondaries set.
# The kernel promotes if either conf/all or conf/$DEV says so, and a new
# namespace copies conf/all from init_net, where e.g. systemd sets it.
setup_dev()
{
	local promote=$1; shift

	setup_ns NS || return
	defer cleanup_ns "$NS"
	ip -n "$NS" link add name "$DEV" type dummy || return
	ip netns exec "$NS" sysctl -qw \
		"net.ipv4.conf.all.promote_secondaries=$promote" \
		"net.ipv4.conf.$DEV.promote_secondaries=$promote" || return
	ip -n "$NS" link set dev "$DEV" up
}

# add_addrs COUNT PER_SUBNET: COUNT addresses, all in 10.0.0.0/16 when
# PER_SUBNET is 0, else PER_SUBNET in each of 10.0.0.0/24, 10.0.1.0/24...
add_addrs()
{
	local count=$1; shift
	local per=$1; shift
	local i

	for ((i = 0; i < count; i++)); do
		if ((per)); then
			echo "address add 10.0.$((i / per)).$((i % per + 1))/24 dev $DEV"
		else
			echo "address add 10.0.$((i / 250)).$((i % 250 + 1))/16 dev $DEV"
		fi
	done | ip -n "$NS" -batch -
}

# check_empty: no IPv4 address nor route left on $DEV.
check_empty()
{
	local out

	out=$(ip -n "$NS" -4 addr show dev "$DEV")
	check_err $? "cannot list the addresses of $DEV"
	[[ $out != *"inet "* ]]
	check_err $? "addresses left on $DEV: $out"
	out=$(ip -n "$NS" -4 route show table all dev "$DEV")
	check_err $? "cannot list the routes of $DEV"
	[[ -z $out ]]
	check_err $? "routes left on $DEV: $out"
}

# flush MODE EXPECTED: flush $DEV with ifa_flusher -m MODE and check its
# report "found .. deleted .. gone .. failed .. left ..".
flush()
{
	local mode=$1; shift
	local expected=$1; shift
	local out

	out=$(ip netns exec "$NS" ./ifa_flusher -m "$mode" "$DEV")
	check_err $? "ifa_flusher -m $mode failed: $out"
	[[ $out == "$expected" ]]
	check_err $? "ifa_flusher -m $mode: \"$out\", expected \"$expected\""
}

# Expected "deleted gone" counts of a flush of N addresses in S subnets:
# without promotion, a primary takes its secondaries along.
expected_counts()
{
	local mode=$1; shift
	local promote=$1; shift
	local s=$1; shift

	if [[ $mode == secfirst ]] || { [[ $mode == dump ]] && ((promote)); }
	then
		echo "deleted $N gone 0"
	else
		echo "deleted $s gone $((N - s))"
	fi
}

# flusher_modes PROMOTE: each mode on one subnet and on /24 subnets of 5.
flusher_modes()
{
	local promote=$1; shift
	local per s mode exp desc

	if ! setup_dev "$promote"; then
		RET=1 retmsg="cannot create $DEV" \
			log_test "ifa_flusher, promote_secondaries=$promote"
		return
	fi
	for per in 0 5; do
		if ((per)); then
			s=$(((N + per - 1) / per))
			desc="$s subnets"
		else
			s=1
			desc="1 subnet"
		fi
		for mode in dump secfirst flag; do
			local name="-m $mode: $N addrs, $desc, promote=$promote"

			if [[ $mode == flag ]] && ((!FLAG)); then
				log_test_skip "$name"
				continue
			fi
			RET=0
			exp=$(expected_counts "$mode" "$promote" "$s")
			add_addrs "$N" "$per"
			check_err $? "adding $N addresses failed"
			flush "$mode" "found $N $exp failed 0 left 0"
			check_empty
			log_test "$name"
		done
	done
}

test_flusher_modes()
{
	in_defer_scope flusher_modes 1
	in_defer_scope flusher_modes 0
}

# route_calls MODE NEW DEL: flush N addresses of one subnet with MODE and
# check the numbers of IPv4 route notifications it causes in $NS.
route_calls()
{
	local mode=$1; shift
	local exp_new=$1; shift
	local exp_del=$1; shift
	local out exp

	RET=0
	add_addrs "$N" 0
	check_err $? "adding $N addresses failed"
	out=$(ip netns exec "$NS" ./ifa_flusher -r -m "$mode" "$DEV")
	check_err $? "ifa_flusher -r -m $mode failed: $out"
	exp="newroute $exp_new delroute $exp_del"
	[[ $out == *" $exp" ]]
	check_err $? "ifa_flusher -r -m $mode: \"$out\", expected \"... $exp\""
	check_empty
	log_test "-m $mode: $N addrs, route notifications"
}

test_route_calls()
{
	RET=0
	if ! setup_dev 1; then
		RET=1 retmsg="cannot create $DEV" log_test "route notifications"
		return
	fi

	route_calls secfirst 0 $((N + 2))
	if ((FLAG)); then
		route_calls flag 0 $((N + 2))
	else
		log_test_skip "-m flag: $N addrs, route notifications"
	fi
}

[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit "$ksft_skip"; }
[[ -x ./ifa_flusher ]] || { echo "SKIP: no ./ifa_flusher"; exit "$ksft_skip"; }

trap 'defer_scopes_cleanup; cleanup_all_ns' EXIT

# Does the kernel know IFA_F_FLUSH?  (exit 4 if not)
./ifa_flusher -c
case $? in
0) FLAG=1 ;; "$ksft_skip") FLAG=0 ;; *) exit "$ksft_fail" ;;
esac

tests_run
exit "$EXIT_STATUS"
