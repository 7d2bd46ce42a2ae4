#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IFA_F_FLUSH: an IPv4 RTM_DELADDR with IFA_F_FLUSH in IFA_FLAGS that deletes
# a primary address deletes its secondaries too, instead of promoting one.
#
# - ifa_flush: notifications, dumps and routes around single requests.
# - ifa_flusher, in dump order, secondaries first and with the flag, empties
#   a device carrying N addresses in one subnet or in several subnets, with
#   the expected numbers of deleted and already gone addresses.
# - The cost of a flush of one subnet, counted (not timed) with the ftrace
#   function profiler: in dump order each delete promotes the next address
#   and re-adds the routes of all the remaining ones, N(N-1)/2 calls of
#   fib_add_ifaddr() in all; with the flag there is none.

# shellcheck disable=SC1091,SC2034,SC2154,SC2317,SC2329
source lib.sh

ALL_TESTS="
	test_ifa_flush
	test_flusher_modes
	test_fib_calls
"

: "${IFA_FLUSH_N:=200}"
N=$IFA_FLUSH_N
DEV=ifaf0
TRACEFS=

# setup_dev PROMOTE: namespace $NS with $DEV up and promote_secondaries set.
setup_dev()
{
	local promote=$1; shift

	setup_ns NS || return
	defer cleanup_ns "$NS"
	# A dummy device, or a veth pair where dummy is not available.
	if ! ip -n "$NS" link add name "$DEV" type dummy 2>/dev/null; then
		ip -n "$NS" link add name "$DEV" type veth \
			peer name "${DEV}p" || return
		ip -n "$NS" link set dev "${DEV}p" up || return
	fi
	ip netns exec "$NS" sysctl -qw \
		"net.ipv4.conf.$DEV.promote_secondaries=$promote" || return
	ip -n "$NS" link set dev "$DEV" up
}

# add_addrs COUNT PER_SUBNET: COUNT addresses, all in 10.0.0.0/16 when
# PER_SUBNET is 0, else PER_SUBNET in each of 10.0.0.0/24, 10.0.1.0/24...
add_addrs()
{
	local count=$1; shift
	local per=$1; shift

	if ((per)); then
		ip netns exec "$NS" ./ifa_flusher -a "$count" -s "$per" \
			-p 10.0.0.0/24 "$DEV" >/dev/null
	else
		ip netns exec "$NS" ./ifa_flusher -a "$count" \
			-p 10.0.0.0/16 "$DEV" >/dev/null
	fi
}

# check_empty: no IPv4 address nor route left on $DEV.
check_empty()
{
	local left

	left=$(ip -n "$NS" -4 addr show dev "$DEV" | grep -c 'inet ')
	check_err "$left" "$left addresses left on $DEV"
	left=$(ip -n "$NS" -4 route show table all dev "$DEV" | wc -l)
	check_err "$left" "$left routes left on $DEV"
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

test_ifa_flush()
{
	local ret

	RET=0

	./ifa_flush
	ret=$?
	if ((ret == ksft_skip)); then
		log_test_skip "ifa_flush: requests, notifications and routes"
		return
	fi
	check_err "$ret" "ifa_flush failed"
	log_test "ifa_flush: requests, notifications and routes"
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

# flusher_modes PROMOTE: each mode on one subnet and on /24 subnets of 50.
flusher_modes()
{
	local promote=$1; shift
	local per s mode exp desc

	if ! setup_dev "$promote"; then
		RET=$ksft_skip retmsg="cannot create $DEV" \
			log_test "ifa_flusher, promote_secondaries=$promote"
		return
	fi
	for per in 0 50; do
		if ((per)); then
			s=$(((N + per - 1) / per))
			desc="$s subnets"
		else
			s=1
			desc="1 subnet"
		fi
		for mode in dump secfirst flag; do
			RET=0
			exp=$(expected_counts "$mode" "$promote" "$s")
			add_addrs "$N" "$per"
			check_err $? "adding $N addresses failed"
			flush "$mode" "found $N $exp failed 0 left 0"
			check_empty
			log_test "-m $mode: $N addrs, $desc, promote=$promote"
		done
	done
}

test_flusher_modes()
{
	in_defer_scope flusher_modes 1
	in_defer_scope flusher_modes 0
}

tracefs_find()
{
	local d

	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [[ -w $d/function_profile_enabled ]]; then
			TRACEFS=$d
			return 0
		fi
	done
	return 1
}

# tracing_restore FILTER PROFILE: put the filter and the profiler back.
tracing_restore()
{
	local filter=$1; shift
	local profile=$1; shift

	echo "$profile" > "$TRACEFS/function_profile_enabled"
	if [[ -n $filter ]]; then
		echo "$filter" > "$TRACEFS/set_ftrace_filter"
	else
		: > "$TRACEFS/set_ftrace_filter"
	fi
}

# Enabling the profiler clears its counters.
profile_on()
{
	echo 0 > "$TRACEFS/function_profile_enabled" &&
		echo 1 > "$TRACEFS/function_profile_enabled"
}

profile_off()
{
	echo 0 > "$TRACEFS/function_profile_enabled"
}

# profile_hits FUNC: calls of FUNC, summed over the CPUs.
profile_hits()
{
	local func=$1; shift

	awk -v f="$func" '$1 == f { n += $2 } END { print n + 0 }' \
		"$TRACEFS"/trace_stat/function[0-9]*
}

# fib_calls MODE ADD DEL: flush N addresses of one subnet with MODE and
# check the numbers of calls of fib_add_ifaddr() and fib_del_ifaddr().
fib_calls()
{
	local mode=$1; shift
	local exp_add=$1; shift
	local exp_del=$1; shift
	local add del out

	RET=0
	add_addrs "$N" 0
	check_err $? "adding $N addresses failed"
	profile_on
	check_err $? "cannot start the function profiler"
	out=$(ip netns exec "$NS" ./ifa_flusher -m "$mode" "$DEV")
	check_err $? "ifa_flusher -m $mode failed: $out"
	profile_off
	add=$(profile_hits fib_add_ifaddr)
	del=$(profile_hits fib_del_ifaddr)
	((add == exp_add))
	check_err $? "$add calls of fib_add_ifaddr, expected $exp_add"
	((del == exp_del))
	check_err $? "$del calls of fib_del_ifaddr, expected $exp_del"
	check_empty
	log_test "-m $mode: $N addrs, fib_add_ifaddr $add, fib_del_ifaddr $del"
}

test_fib_calls()
{
	local filter profile func

	RET=0
	if ! tracefs_find; then
		log_test_skip "fib calls: no ftrace function profiler"
		return
	fi
	for func in fib_add_ifaddr fib_del_ifaddr; do
		if ! grep -qx "$func" "$TRACEFS/available_filter_functions" \
		     2>/dev/null; then
			log_test_skip "fib calls: $func cannot be traced"
			return
		fi
	done
	filter=$(grep -v '^#' "$TRACEFS/set_ftrace_filter")
	profile=$(cat "$TRACEFS/function_profile_enabled")
	defer tracing_restore "$filter" "$profile"
	if ! echo "fib_add_ifaddr fib_del_ifaddr" > \
	     "$TRACEFS/set_ftrace_filter"; then
		log_test_skip "fib calls: cannot set the ftrace filter"
		return
	fi
	if ! setup_dev 1; then
		log_test_skip "fib calls: cannot create $DEV"
		return
	fi

	# Dump order: deleting the primary of k addresses removes the routes
	# of the k - 1 others, promotes one and adds them back.
	fib_calls dump $((N * (N - 1) / 2)) $((N * (N + 1) / 2))
	fib_calls secfirst 0 "$N"
	fib_calls flag 0 "$N"
}

if (($(id -u))); then
	echo "SKIP: needs root"
	exit "$ksft_skip"
fi
for prog in ifa_flush ifa_flusher; do
	if [[ ! -x ./$prog ]]; then
		echo "SKIP: ./$prog not built"
		exit "$ksft_skip"
	fi
done

trap 'defer_scopes_cleanup; cleanup_all_ns' EXIT
tests_run
exit "$EXIT_STATUS"
