#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IFA_F_FLUSH: an IPv4 RTM_DELADDR with IFA_F_FLUSH in IFA_FLAGS that deletes
# a primary address deletes its secondaries too, instead of promoting one.
# The single requests, their notifications and routes are ifa_flush's (a
# kselftest harness program of its own); this script empties devices with
# ifa_flusher and compares the ways of removing a subnet:
#
# - flag_flush: with the flag, ifa_flusher empties a device carrying N
#   addresses in one subnet or in several subnets, one request per
#   subnet, the other addresses already gone with their primary.
# - route_calls: such a flush with promote_secondaries=1 adds no IPv4
#   route back (counted in the route notifications of the test's
#   namespace): nothing was promoted.
# - subnet_removal: removing whole subnets leaves the same addresses and
#   routes, and sends the same RTM_DELADDR, RTM_NEWROUTE and RTM_DELROUTE
#   notifications, whichever way it is done:
#     flag:     RTM_DELADDR of the primary with IFA_F_FLUSH,
#               promote_secondaries=1;
#     plain:    RTM_DELADDR of the primary, promote_secondaries=0;
#     secfirst: RTM_DELADDR of each secondary, then of the primary,
#               promote_secondaries=1.
# - bulk: one RTM_DELADDR with NLM_F_BULK empties a device of N addresses
#   (one subnet, /24s, /32s) with one RTM_DELADDR notification each and
#   no route added back, and leaves the same addresses and routes as
#   deleting every address of d0 in dump order with promote_secondaries=0
#   over the layouts of subnet_removal.
# - bulk6: one RTM_DELADDR with NLM_F_BULK and ifa_family AF_INET6
#   (ifa_flusher -6 -m bulk) empties a device of about N6 (IFA_FLUSH_N6,
#   300) IPv6 addresses (see add_layout6: /128s, /64s of five, link-local
#   ones and the kernel's own, /64s with finite lifetimes, temporary ones,
#   ones without prefix route, one with a peer), sends one RTM_DELADDR
#   notification per address, leaves no IPv6 route of the device but
#   ff00::/8, and leaves its IPv4 addresses and routes as they were.  And
#   over BULK6_LAYOUT, where the order of the deletes decides which prefix
#   routes stay, it leaves the same addresses and routes of both families
#   as deleting each address in dump order (ifa_flusher -6 -m dump, what
#   "ip -6 address flush" does).
# - filtered: a flush with a selector (to PREFIX, label, scope, flags,
#   proto, with or without dev) that deletes a selected primary with the
#   flag exactly when every address of its subnet is selected, and every
#   other selected address plainly, leaves the same addresses and routes
#   as "ip -4 address flush" with the same selector, for each row of
#   FILTER_ROWS and promote_secondaries 0 and 1, and uses the flag for the
#   number of subnets the row says.  ifa_flusher -m select does it from
#   the list "ip -4 address show SELECTOR" prints; with IFA_FLUSH_IP set
#   to an ip that uses the flag itself, that ip is compared too.
#
# On a kernel without IFA_F_FLUSH (probed with ifa_flusher -c, which
# tries RTM_NEWADDR with the bit) the flag cases SKIP; on one that says
# "Bulk delete is not supported", the bulk cases SKIP (for IPv4 and IPv6
# apart: bulk6 SKIPs on a kernel with the IPv4 bulk delete only, and
# without IPv6).
#
# Topology: a namespace per case.  flag_flush and route_calls: a dummy
# device ifaf0 with N (IFA_FLUSH_N, 20) addresses.  subnet_removal: dummy
# devices d0 and d1 (and d9 for the monitor's sentinel address), carrying
# the same addresses in each namespace:
#
#   d0  10.1.0.1/24 + 5 secondaries; 10.2.0.1/24 + 1 (another subnet)
#       10.3.0.0/31 + 10.3.0.1/31                       (/31)
#       10.4.0.1 peer 10.4.0.100/32 + 10.4.0.2 peer ..  (/32 primary, peers)
#       10.4.1.1/32                                     (lone /32)
#       10.5.0.1 peer 10.5.0.0/24 + 10.5.0.2 peer ..    (peer prefix)
#       10.6.0.1/24 + 10.6.0.2/24; 10.6.0.1/16 + 10.6.0.2/16 + 10.6.1.2/16
#                                   (same local address in a /24 and a /16)
#       10.7.0.1/24 brd + ...; secondaries with brd +, and two sharing
#                                   brd 10.7.0.200, one with its own
#       10.8.0.1/24 noprefixroute + 1
#       10.9.0.1/24 label d0:a + 10.9.0.2/24 label d0:b
#       10.10.0.1/24 + 10.10.0.2/24, route 198.51.100.0/24 src 10.10.0.2
#                                   in table 100
#       10.11.0.1/24 + 1            (same addresses on d1)
#   d1  10.11.0.1/24 + 1
#
# filtered adds, on d0: 10.20.0.1/24 + 1, scope link; 10.21.0.1/24 proto 99
# + 10.21.0.2 proto 99 + 10.21.0.3 (no proto); 10.22.0.1/24 proto 98 +
# 10.22.0.2 proto 99; 10.23.0.1/24 valid_lft 3600 (dynamic) + 10.23.0.2
# (permanent).  The proto addresses need ip >= 6.4; without it they are
# added without proto and the proto row is not run (an info line says so).
#
# subnet_removal removes the subnets 10.1.0.0/24, 10.3.0.0/31, 10.4.0.100/32,
# 10.4.1.1/32, 10.5.0.0/24, 10.6.0.0/24, 10.7.0.0/24, 10.8.0.0/24,
# 10.9.0.0/24, 10.10.0.0/24 and 10.11.0.0/24 of d0.
#
# Expected runtime: about 60 s under QEMU/TCG (idle host).

# lib.sh is not followed without -x (SC1091) and sets or reads ALL_TESTS,
# RET and ksft_* (SC2034, SC2154); test functions run from ALL_TESTS
# (SC2317, SC2329 in shellcheck >= 0.10).
# shellcheck disable=SC1091,SC2034,SC2154,SC2317,SC2329
source "$(dirname "$0")"/lib.sh

FLUSHER=$(dirname "$0")/ifa_flusher

ALL_TESTS="
	test_flag_flush
	test_route_calls
	test_subnet_removal
	test_bulk
	test_bulk6
	test_filtered
"

: "${IFA_FLUSH_N:=20}"
N=$IFA_FLUSH_N
: "${IFA_FLUSH_N6:=300}"
N6=$IFA_FLUSH_N6
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
# PER_SUBNET is 0, each a /32 of its own when it is 1, else PER_SUBNET in
# each of 10.0.0.0/24, 10.0.1.0/24...
add_addrs()
{
	local count=$1; shift
	local per=$1; shift
	local i addr

	for ((i = 0; i < count; i++)); do
		if ((per == 1)); then
			addr=10.0.$((i / 250)).$((i % 250 + 1))/32
		elif ((per)); then
			addr=10.0.$((i / per)).$((i % per + 1))/24
		else
			addr=10.0.$((i / 250)).$((i % 250 + 1))/16
		fi
		echo "address add $addr dev $DEV"
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

# flush MODE EXPECTED [-r NOTIF]: flush $DEV with ifa_flusher -m MODE and
# check its report "found .. deleted .. gone .. failed .. left .." (with
# -r, followed by the notification counts, matched as the pattern NOTIF).
flush()
{
	local mode=$1; shift
	local expected=$1; shift
	local opts=() out

	if [[ ${1:-} == -r ]]; then
		opts=(-r)
		expected="$expected $2"
	fi
	out=$(ip netns exec "$NS" "$FLUSHER" "${opts[@]}" -m "$mode" "$DEV")
	check_err $? "ifa_flusher -m $mode failed: $out"
	# shellcheck disable=SC2053 # the -r part is a pattern
	[[ $out == $expected ]]
	check_err $? "ifa_flusher -m $mode: \"$out\", expected \"$expected\""
}

# flag_flush PROMOTE: the flag empties a device of N addresses in one
# subnet and in /24 subnets of five: one request per subnet deletes, the
# other addresses are already gone with their primary.
flag_flush()
{
	local promote=$1; shift
	local per s desc

	if ! setup_dev "$promote"; then
		RET=1 retmsg="cannot create $DEV" \
			log_test "flag flush, promote_secondaries=$promote"
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
		RET=0
		add_addrs "$N" "$per"
		check_err $? "adding $N addresses failed"
		flush flag "found $N deleted $s gone $((N - s)) failed 0 left 0"
		check_empty
		log_test "flag flush: $N addrs, $desc, promote=$promote"
	done
}

test_flag_flush()
{
	if ((!FLAG)); then
		log_test_skip "flag flush (no IFA_F_FLUSH)"
		return
	fi
	in_defer_scope flag_flush 1
	in_defer_scope flag_flush 0
}

# With promote_secondaries=1, a flag flush of one subnet promotes nothing:
# no IPv4 route is added back (each promotion would re-add the routes of
# the subnet with the new prefsrc).
route_calls()
{
	local out

	RET=0
	if ! setup_dev 1; then
		RET=1 retmsg="cannot create $DEV" \
			log_test "flag flush: no route added"
		return
	fi
	add_addrs "$N" 0
	check_err $? "adding $N addresses failed"
	out=$(ip netns exec "$NS" "$FLUSHER" -r -m flag "$DEV")
	check_err $? "ifa_flusher -r -m flag failed: $out"
	[[ $out == *" newroute 0 delroute "* ]]
	check_err $? "ifa_flusher -r -m flag: \"$out\", expected newroute 0"
	check_empty
	log_test "flag flush: $N addrs, promote=1, no route added"
}

test_route_calls()
{
	if ((!FLAG)); then
		log_test_skip "flag flush: no route added (no IFA_F_FLUSH)"
		return
	fi
	in_defer_scope route_calls
}

SUBNETS="10.1.0.0/24 10.3.0.0/31 10.4.0.100/32 10.4.1.1/32 10.5.0.0/24
	10.6.0.0/24 10.7.0.0/24 10.8.0.0/24 10.9.0.0/24 10.10.0.0/24
	10.11.0.0/24"

add_layout()
{
	local ns=$1; shift
	local i

	ip -n "$ns" -batch - <<-EOF || return
		addr add 10.1.0.1/24 dev d0
		addr add 10.1.0.2/24 dev d0
		addr add 10.1.0.3/24 dev d0
		addr add 10.2.0.1/24 dev d0
		addr add 10.1.0.4/24 dev d0
		addr add 10.2.0.2/24 dev d0
		addr add 10.1.0.5/24 dev d0
		addr add 10.1.0.6/24 dev d0
		addr add 10.3.0.0/31 dev d0
		addr add 10.3.0.1/31 dev d0
		addr add 10.4.0.1 peer 10.4.0.100/32 dev d0
		addr add 10.4.0.2 peer 10.4.0.100/32 dev d0
		addr add 10.4.1.1/32 dev d0
		addr add 10.5.0.1 peer 10.5.0.0/24 dev d0
		addr add 10.5.0.2 peer 10.5.0.0/24 dev d0
		addr add 10.6.0.1/24 dev d0
		addr add 10.6.0.1/16 dev d0
		addr add 10.6.0.2/24 dev d0
		addr add 10.6.0.2/16 dev d0
		addr add 10.6.1.2/16 dev d0
		addr add 10.7.0.1/24 brd + dev d0
		addr add 10.7.0.2/24 brd + dev d0
		addr add 10.7.0.3/24 brd 10.7.0.200 dev d0
		addr add 10.7.0.4/24 brd 10.7.0.200 dev d0
		addr add 10.7.0.5/24 brd 10.7.0.201 dev d0
		addr add 10.8.0.1/24 dev d0 noprefixroute
		addr add 10.8.0.2/24 dev d0 noprefixroute
		addr add 10.9.0.1/24 dev d0 label d0:a
		addr add 10.9.0.2/24 dev d0 label d0:b
		addr add 10.10.0.1/24 dev d0
		addr add 10.10.0.2/24 dev d0
		route add 198.51.100.0/24 dev d0 src 10.10.0.2 table 100
		addr add 10.11.0.1/24 dev d0
		addr add 10.11.0.2/24 dev d0
		addr add 10.11.0.1/24 dev d1
		addr add 10.11.0.2/24 dev d1
	EOF
}

# Addresses and routes of the namespace, one per line, sorted; lifetimes
# and other counters left out.
state()
{
	local ns=$1; shift

	ip -n "$ns" -j -4 addr show |
		jq -r '.[] | .ifname as $d | .addr_info[] |
			[$d, .local, .address // "", .prefixlen,
			 .broadcast // "", .label // "", .secondary // false,
			 .noprefixroute // false] | @tsv' | sort
	ip -n "$ns" -j -4 route show table all |
		jq -r '.[] | [.table // "main", .type // "unicast", .dst,
			      .dev, .prefsrc // "", .protocol // "",
			      .scope // ""] | @tsv' | sort
}

# Wait until the monitor has printed the sentinel address $1 (the monitor
# prints notifications in the order the kernel sent them).  A monitor
# that has just started may not have joined its groups yet: add the
# sentinel again until it shows (its lines are left out of the
# comparison).
sync_monitor()
{
	local ns=$1; shift
	local addr=$1; shift
	local i

	for i in $(seq 30); do
		ip -n "$ns" addr add "$addr/32" dev d9 || return
		slowwait 2 grep -q "inet $addr/32" "$WORKDIR/mon.$ns" && return
		ip -n "$ns" addr del "$addr/32" dev d9 || return
	done
	echo "# the monitor of $ns never reported $addr"
	return 1
}

# remove_subnets METHOD PROMOTE [all]: remove $SUBNETS of d0 (with "all":
# every address of d0) with ifa_flusher -m METHOD in a new namespace;
# writes $WORKDIR/state.TAG and $WORKDIR/notif.TAG, TAG being METHOD (with
# "all": METHOD-all).
remove_subnets()
{
	local method=$1; shift
	local promote=$1; shift
	local subnets=$SUBNETS tag=$method
	local ns subnet out rc=0 mpid d opts

	if [[ ${1:-} == all ]]; then
		subnets=all
		tag=$method-all
	fi

	setup_ns ns || return
	defer cleanup_ns "$ns"
	for d in d0 d1 d9; do
		ip -n "$ns" link add name "$d" type dummy || return
		ip -n "$ns" link set dev "$d" up || return
	done
	ip netns exec "$ns" sysctl -qw \
		"net.ipv4.conf.all.promote_secondaries=$promote" \
		"net.ipv4.conf.d0.promote_secondaries=$promote" || return
	add_layout "$ns" || return

	ip -n "$ns" -o -4 monitor address route >"$WORKDIR/mon.$ns" 2>&1 &
	mpid=$!
	defer kill_process "$mpid"
	sync_monitor "$ns" 192.0.2.98 || return

	for subnet in $subnets; do
		opts=(-m "${method/plain/dump}")
		[[ $subnet == all ]] || opts+=(-o "$subnet")
		out=$(ip netns exec "$ns" "$FLUSHER" "${opts[@]}" d0) || rc=1
		[[ $out == *" failed 0 left 0" ]] || rc=1
		[[ $rc -eq 0 ]] || {
			echo "# $method $subnet: $out"
			return 1
		}
	done
	sync_monitor "$ns" 192.0.2.99 || return

	state "$ns" | grep -v -F -e 192.0.2.98 -e 192.0.2.99 \
		>"$WORKDIR/state.$tag"
	# ip -o monitor puts one notification on a line; the sentinel's
	# own address and routes are not part of the comparison.  Sorted,
	# not deduplicated: a notification sent twice is a difference.
	grep -v -F -e 192.0.2.98 -e 192.0.2.99 "$WORKDIR/mon.$ns" |
		sed -e 's/\\ *valid_lft.*//' -e 's/  */ /g' | sort \
		>"$WORKDIR/notif.$tag"
}

# compare A B WHAT: the files $WORKDIR/WHAT.A and $WORKDIR/WHAT.B agree.
compare()
{
	local a=$1; shift
	local b=$1; shift
	local what=$1; shift
	local d=$WORKDIR/diff

	[[ -s $WORKDIR/$what.$a && -s $WORKDIR/$what.$b ]]
	check_err $? "no $what recorded for $a or $b"
	if ! diff -u "$WORKDIR/$what.$a" "$WORKDIR/$what.$b" >"$d"; then
		sed 's/^/# /' "$d"
		check_err 1 "$what differs between $a and $b"
	fi
}

test_subnet_removal()
{
	local m

	if ! command -v jq >/dev/null; then
		log_test_skip "subnet removal (jq not installed)"
		return
	fi
	for m in plain:0 secfirst:1 flag:1; do
		if [[ $m == flag:* ]] && ((!FLAG)); then
			log_test_skip "subnet removal: flag (no IFA_F_FLUSH)"
			continue
		fi
		RET=0
		in_defer_scope remove_subnets "${m%:*}" "${m#*:}"
		check_err $? "removing the subnets with ${m%:*} failed"
		log_test "subnet removal: ${m%:*}, promote_secondaries=${m#*:}"
	done

	RET=0
	compare plain secfirst state
	compare plain secfirst notif
	log_test "subnet removal: plain = secfirst"

	if ((!FLAG)); then
		log_test_skip "subnet removal: flag = secfirst (no IFA_F_FLUSH)"
		return
	fi
	RET=0
	compare flag secfirst state
	compare flag secfirst notif
	log_test "subnet removal: flag = secfirst"
}

# bulk_flush PROMOTE: one bulk RTM_DELADDR empties a device of N addresses
# in one subnet, in /24 subnets of five and in /32s, sends one RTM_DELADDR
# notification per address and adds no route back.
bulk_flush()
{
	local promote=$1; shift
	local per desc

	if ! setup_dev "$promote"; then
		RET=1 retmsg="cannot create $DEV" \
			log_test "bulk flush, promote_secondaries=$promote"
		return
	fi
	for per in 0 5 1; do
		case $per in
		0) desc="1 subnet" ;;
		1) desc="/32s" ;;
		*) desc="/24s of $per" ;;
		esac
		RET=0
		add_addrs "$N" "$per"
		check_err $? "adding $N addresses failed"
		flush bulk "found $N deleted $N gone 0 failed 0 left 0" -r \
			"newroute 0 delroute * deladdr $N"
		check_empty
		log_test "bulk flush: $N addrs, $desc, promote=$promote"
	done
}

# A bulk delete of every address of d0 leaves the same addresses and
# routes as deleting them one by one in dump order with
# promote_secondaries=0, over the layouts of subnet_removal; d1 keeps its
# own.
test_bulk()
{
	if ((!BULK)); then
		log_test_skip "bulk flush (no bulk RTM_DELADDR)"
		return
	fi
	in_defer_scope bulk_flush 1
	in_defer_scope bulk_flush 0
	if ! command -v jq >/dev/null; then
		log_test_skip "bulk = plain (jq not installed)"
		return
	fi
	RET=0
	in_defer_scope remove_subnets plain 0 all
	check_err $? "deleting every address of d0 one by one failed"
	in_defer_scope remove_subnets bulk 1 all
	check_err $? "the bulk delete of d0 failed"
	compare plain-all bulk-all state
	log_test "bulk = plain deletes in dump order, promote_secondaries=0"
}

# add_layout6 NS DEV COUNT: COUNT IPv6 addresses on DEV, by fours: a
# /128, one of five in a /64, a link-local one, one of five in a /64 with
# finite lifetimes; then two mngtmpaddr addresses (use_tempaddr=2 makes
# a temporary address for each as it is added), two without prefix route
# in a /64 of their own and one with a peer.  With addr_gen_mode=0, DEV
# also has the kernel's link-local address.  No prefix route outlives
# its addresses here (see BULK6_LAYOUT).
add_layout6()
{
	local ns=$1; shift
	local dev=$1; shift
	local count=$1; shift
	local i

	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.addr_gen_mode=0" \
		"net.ipv6.conf.$dev.use_tempaddr=2" || return
	for ((i = 0; i < count; i++)); do
		case $((i % 4)) in
		0) printf 'addr add 2001:db8:1::%x/128' "$i" ;;
		1) printf 'addr add 2001:db8:2:%x::%x/64' $((i / 20)) "$i" ;;
		2) printf 'addr add fe80::1:%x/64' "$i" ;;
		3) printf 'addr add 2001:db8:3:%x::%x/64 valid_lft %d %s' \
			$((i / 20)) "$i" $((3600 + i)) "preferred_lft 1800" ;;
		esac
		echo " dev $dev"
	done | ip -n "$ns" -batch - || return
	ip -n "$ns" -batch - <<-EOF
		addr add 2001:db8:7::1/64 dev $dev mngtmpaddr
		addr add 2001:db8:8::1/64 dev $dev mngtmpaddr
		addr add 2001:db8:9::1/64 dev $dev noprefixroute
		addr add 2001:db8:9::2/64 dev $dev noprefixroute
		addr add 2001:db8:c::1 peer 2001:db8:d::1/128 dev $dev
	EOF
}

# state4_dev: the IPv4 addresses and routes of $DEV.
state4_dev()
{
	ip -n "$NS" -4 addr show dev "$DEV"
	ip -n "$NS" -4 route show table all dev "$DEV"
}

# bulk6_flush: an IPv6 bulk delete empties $DEV of the add_layout6
# addresses with one RTM_DELADDR notification each; its IPv4 addresses
# (N, in /24s of five) and their routes stay.
bulk6_flush()
{
	local n tmp before out want

	RET=0
	if ! setup_dev 0; then
		RET=1 retmsg="cannot create $DEV" log_test "IPv6 bulk flush"
		return
	fi
	add_addrs "$N" 5
	check_err $? "adding $N IPv4 addresses failed"
	add_layout6 "$NS" "$DEV" "$N6"
	check_err $? "adding $N6 IPv6 addresses failed"
	n=$(ip -n "$NS" -6 -o addr show dev "$DEV" | wc -l)
	tmp=$(ip -n "$NS" -6 -o addr show dev "$DEV" temporary | wc -l)
	((tmp == 2))
	check_err $? "$tmp temporary addresses, expected 2"
	before=$(state4_dev)

	out=$(ip netns exec "$NS" "$FLUSHER" -6 -r -m bulk "$DEV")
	check_err $? "ifa_flusher -6 -r -m bulk failed: $out"
	want="found $n deleted $n gone 0 failed 0 left 0 newroute * deladdr $n"
	# shellcheck disable=SC2053 # a pattern
	[[ $out == $want ]]
	check_err $? "ifa_flusher -6 -r -m bulk: \"$out\", expected \"$want\""

	out=$(ip -n "$NS" -6 addr show dev "$DEV")
	check_err $? "cannot list the IPv6 addresses of $DEV"
	[[ $out != *"inet6 "* ]]
	check_err $? "IPv6 addresses left on $DEV: $out"
	out=$(ip -n "$NS" -6 route show table all dev "$DEV")
	check_err $? "cannot list the IPv6 routes of $DEV"
	out=$(grep -v '^multicast ff00::/8 ' <<<"$out")
	[[ -z $out ]]
	check_err $? "IPv6 routes left on $DEV: $out"
	[[ $(state4_dev) == "$before" ]]
	check_err $? "the IPv4 addresses or routes of $DEV changed"
	log_test "IPv6 bulk flush: $n addrs, $N IPv4 addrs kept"
}

# BULK6_LAYOUT: d0's IPv6 addresses and routes for the comparison with
# one delete per address, added in this order (a dump lists the newest
# address of a scope first).  Deleting them in dump order, a /64's prefix
# route stays if its last address in dump order has no prefix route of its
# own (2001:db8:a::/64, and 2001:db8:b::/64 with the expiry of its
# address's lifetime), and goes in the other /64s; an address with finite
# lifetimes first makes its /64's route expire (2001:db8:c::/64); routes
# whose prefsrc goes lose it (2001:db8:98::/64 is d1's).  The prefsrc
# addresses are nodad: a tentative address is no route's source.
BULK6_LAYOUT="
addr add 2001:db8:1::1/128 dev d0 nodad
addr add 2001:db8:1::2/128 dev d0
addr add 2001:db8:2::1/64 dev d0 nodad
addr add 2001:db8:2::2/64 dev d0
addr add 2001:db8:2::3/48 dev d0
addr add 2001:db8:a::2/64 dev d0 noprefixroute
addr add 2001:db8:a::1/64 dev d0
addr add 2001:db8:b::2/64 dev d0 noprefixroute valid_lft 3600 preferred_lft 3600
addr add 2001:db8:b::1/64 dev d0 valid_lft 7200 preferred_lft 7200
addr add 2001:db8:c::2/64 dev d0 valid_lft 3600 preferred_lft 3600
addr add 2001:db8:c::1/64 dev d0 valid_lft 7200 preferred_lft 7200
addr add 2001:db8:e::1/64 dev d0
addr add 2001:db8:e::2/64 dev d0 noprefixroute
addr add 2001:db8:7::1/64 dev d0 mngtmpaddr
addr add 2001:db8:f::1 peer 2001:db8:f:1::1/128 dev d0
addr add fe80::1:1/64 dev d0
addr add 10.1.0.1/24 dev d0
addr add 10.1.0.2/24 dev d0
addr add 10.2.0.1/24 dev d1
route add 2001:db8:99::/64 dev d0 src 2001:db8:1::1
route add 2001:db8:98::/64 dev d1 src 2001:db8:2::1
"

# The IPv6 addresses and routes of namespace $1, sorted; lifetimes left
# out (a route's expiry: whether it has one).
state6()
{
	local ns=$1; shift

	ip -n "$ns" -j -6 addr show |
		jq -r '.[] | .ifname as $d | .addr_info[] |
			[$d, .local, .address // "", .prefixlen, .scope,
			 .noprefixroute // false, .temporary // false,
			 .mngtmpaddr // false, .dynamic // false] | @tsv' | sort
	ip -n "$ns" -j -6 route show table all |
		jq -r '.[] | [.table // "main", .type // "unicast", .dst,
			      .dev, .prefsrc // "", .protocol // "",
			      .expires != null] | @tsv' | sort
}

# remove6 METHOD: BULK6_LAYOUT in a new namespace (d0 with a fixed MAC
# address, its link-local address and a temporary address; d1 without
# IPv6 address), then ifa_flusher -6 -r -m METHOD d0: every address of d0
# deleted, one RTM_DELADDR each; writes $WORKDIR/state6.METHOD.
remove6()
{
	local method=$1; shift
	local ns n out

	setup_ns ns || return
	defer cleanup_ns "$ns"
	ip -n "$ns" link add name d0 address 02:00:00:00:00:10 type dummy &&
		ip -n "$ns" link add name d1 type dummy || return
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.d0.addr_gen_mode=0 \
		net.ipv6.conf.d1.addr_gen_mode=1 \
		net.ipv6.conf.d0.use_tempaddr=2 || return
	ip -n "$ns" link set dev d0 up && ip -n "$ns" link set dev d1 up ||
		return
	ip -n "$ns" -batch - <<<"$BULK6_LAYOUT" || return
	n=$(ip -n "$ns" -6 -o addr show dev d0 | wc -l)
	out=$(ip netns exec "$ns" "$FLUSHER" -6 -r -m "$method" d0)
	if [[ $out != "found $n "*" failed 0 left 0 newroute "*" deladdr $n" ]]
	then
		echo "# -6 -m $method: \"$out\", expected $n RTM_DELADDR"
		return 1
	fi
	{ state "$ns"; state6 "$ns"; } >"$WORKDIR/state6.$method"
}

# An IPv6 bulk delete empties a device of N6 addresses; it leaves the same
# addresses and routes as one delete per address in dump order.
test_bulk6()
{
	if ((!HAVE_IPV6)); then
		log_test_skip "IPv6 bulk flush (no IPv6)"
		return
	fi
	if ((!BULK6)); then
		log_test_skip "IPv6 bulk flush (no IPv6 bulk RTM_DELADDR)"
		return
	fi
	in_defer_scope bulk6_flush
	if ! command -v jq >/dev/null; then
		log_test_skip "IPv6 bulk = dump (jq not installed)"
		return
	fi
	RET=0
	in_defer_scope remove6 dump
	check_err $? "deleting every IPv6 address of d0 one by one failed"
	in_defer_scope remove6 bulk
	check_err $? "the IPv6 bulk delete of d0 failed"
	compare dump bulk state6
	log_test "IPv6 bulk = deletes in dump order"
}

# FILTER_ROWS: "SELECTOR|SUBNETS", SUBNETS being how many subnets the
# flush removes whole, and so deletes with the flag, over add_layout and
# add_filter_layout.  d0 has 17 subnets: 10.1-10.3, 10.4.0.100/32 (peers),
# 10.4.1.1/32, 10.5, 10.6.0.0/24, 10.6.0.0/16, 10.7-10.11, 10.20-10.23.
FILTER_ROWS=(
	"dev d0|17"
	"to 10.1.0.0/24|1"
	"to 10.1.0.0/30|0"
	"to 10.6.0.0/24|1"
	"to 10.11.0.0/24|2"
	"to 10.4.0.0/16|2"
	"to 10.5.0.2/32|0"
	"label d0:a|0"
	"label d0:*|1"
	"dev d0 scope link|1"
	"dev d0 noprefixroute|1"
	"dev d0 secondary|0"
	"dev d0 dynamic|0"
	"dev d0 permanent|16"
	"dev d0 proto 99|16"
)

# add_filter_layout NS: the addresses of the filtered rows, after
# add_layout's.
add_filter_layout()
{
	local ns=$1; shift

	ip -n "$ns" -batch - <<-EOF || return
		addr add 10.20.0.1/24 dev d0 scope link
		addr add 10.20.0.2/24 dev d0 scope link
		addr add 10.23.0.1/24 dev d0 valid_lft 3600 preferred_lft 3600
		addr add 10.23.0.2/24 dev d0
	EOF
	# an ip without proto adds the same addresses without it
	local p98="" p99=""
	if ((HAVE_PROTO)); then
		p98="proto 98"
		p99="proto 99"
	fi
	ip -n "$ns" -batch - <<-EOF
		addr add 10.21.0.1/24 dev d0 $p99
		addr add 10.21.0.2/24 dev d0 $p99
		addr add 10.21.0.3/24 dev d0
		addr add 10.22.0.1/24 dev d0 $p98
		addr add 10.22.0.2/24 dev d0 $p99
	EOF
}

# filter_ns PROMOTE: a new namespace (its name printed) with d0, d1 and
# the addresses of add_layout and add_filter_layout.
filter_ns()
{
	local promote=$1; shift
	local ns d

	setup_ns ns || return
	defer cleanup_ns "$ns"
	for d in d0 d1; do
		ip -n "$ns" link add name "$d" type dummy || return
		ip -n "$ns" link set dev "$d" up || return
	done
	ip netns exec "$ns" sysctl -qw \
		"net.ipv4.conf.all.promote_secondaries=$promote" \
		"net.ipv4.conf.d0.promote_secondaries=$promote" \
		"net.ipv4.conf.d1.promote_secondaries=$promote" || return
	add_layout "$ns" && add_filter_layout "$ns" || return
	FILTER_NS=$ns
}

# filtered_row PROMOTE SELECTOR SUBNETS: the same layout flushed with
# SELECTOR by stock ip, by ifa_flusher -m select and (IFA_FLUSH_IP) by an
# ip that uses the flag; same state everywhere, flag used SUBNETS times.
filtered_row()
{
	local promote=$1; shift
	local sel=$1; shift
	local subnets=$1; shift
	local ns_ip ns_sel ns_new out list=$WORKDIR/list words

	read -r -a words <<<"$sel"
	filter_ns "$promote" || return
	ns_ip=$FILTER_NS
	filter_ns "$promote" || return
	ns_sel=$FILTER_NS

	ip -n "$ns_ip" -4 addr flush "${words[@]}"
	check_err $? "ip -4 addr flush $sel failed"
	state "$ns_ip" >"$WORKDIR/state.ip"

	# "IFINDEX: DEV inet LOCAL[/PLEN] [peer ADDRESS/PLEN] ..." (ip -j
	# leaves the device out when a label selects)
	ip -n "$ns_sel" -o -4 addr show "${words[@]}" |
		awk '{	idx = $1; sub(":", "", idx)
			for (i = 2; i < NF; i++)
				if ($i == "inet") {
					l = $(i + 1)
					p = $(i + 2) == "peer" ? $(i + 3) : l
				}
			split(p, a, "/"); sub("/.*", "", l)
			print idx, l, a[1], a[2] }' >"$list"
	check_err $? "ip -4 addr show $sel failed"
	out=$(ip netns exec "$ns_sel" "$FLUSHER" -m select "$list")
	check_err $? "ifa_flusher -m select ($sel) failed: $out"
	[[ $out == *" flagged $subnets deleted "* ]]
	check_err $? "ifa_flusher -m select ($sel): $out; want flagged $subnets"
	state "$ns_sel" >"$WORKDIR/state.select"
	compare ip select state

	[[ -n ${IFA_FLUSH_IP:-} ]] || return 0
	filter_ns "$promote" || return
	ns_new=$FILTER_NS
	ip netns exec "$ns_new" "$IFA_FLUSH_IP" -4 addr flush "${words[@]}"
	check_err $? "$IFA_FLUSH_IP -4 addr flush $sel failed"
	state "$ns_new" >"$WORKDIR/state.new"
	compare ip new state
}

test_filtered()
{
	local row sel promote

	if ((!FLAG)); then
		log_test_skip "filtered flushes (no IFA_F_FLUSH)"
		return
	fi
	if ! command -v jq >/dev/null; then
		log_test_skip "filtered flushes (jq not installed)"
		return
	fi
	for promote in 1 0; do
		for row in "${FILTER_ROWS[@]}"; do
			sel=${row%|*}
			# not a SKIP of the whole script for one row
			if [[ $sel == *proto* ]] && ((!HAVE_PROTO)); then
				log_info "filtered: $sel: not run (ip < 6.4)"
				continue
			fi
			RET=0
			in_defer_scope filtered_row "$promote" "$sel" \
				"${row#*|}"
			log_test "filtered: $sel, promote=$promote"
		done
	done
}

[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit "$ksft_skip"; }
[[ -x $FLUSHER ]] || { echo "SKIP: $FLUSHER not built"; exit "$ksft_skip"; }

WORKDIR=$(mktemp -d)
trap 'defer_scopes_cleanup; cleanup_all_ns; rm -rf "$WORKDIR"' EXIT

# As lib.sh has it: a netns that cannot be created is a missing dependency
# (ksft_skip), in every script of this series; the cases make their own.
setup_ns PROBE_NS || exit
# Every case needs dummy devices (CONFIG_DUMMY).
if ! ip -n "$PROBE_NS" link add name d0 type dummy; then
	cleanup_ns "$PROBE_NS"
	echo "SKIP: no dummy devices"
	exit "$ksft_skip"
fi
cleanup_ns "$PROBE_NS"

# Does the kernel know IFA_F_FLUSH?  (exit 4 if not)
"$FLUSHER" -c
case $? in
0) FLAG=1 ;; "$ksft_skip") FLAG=0 ;; *) exit "$ksft_fail" ;;
esac

# Does it take NLM_F_BULK on RTM_DELADDR?  A kernel without it says "Bulk
# delete is not supported" (since 5.19).
bulk_probe()
{
	local out

	setup_dev 0 || return
	out=$(ip netns exec "$NS" "$FLUSHER" -m bulk "$DEV" 2>&1)
	case $out in
	"found 0 deleted 0 gone 0 failed 0 left 0") BULK=1 ;;
	*"Bulk delete is not supported"*) BULK=0 ;;
	*) echo "# bulk probe: $out"; return 1 ;;
	esac
	((HAVE_IPV6)) || return 0
	# the device's own link-local address may be there to delete
	out=$(ip netns exec "$NS" "$FLUSHER" -6 -m bulk "$DEV" 2>&1)
	case $out in
	"found "*" failed 0 left 0") BULK6=1 ;;
	*"Bulk delete is not supported"*) BULK6=0 ;;
	*) echo "# IPv6 bulk probe: $out"; return 1 ;;
	esac
}
HAVE_IPV6=0
[[ -d /proc/sys/net/ipv6 ]] && HAVE_IPV6=1
BULK6=0
in_defer_scope bulk_probe || exit "$ksft_fail"

# Does ip know address protocols (iproute2 6.4)?
HAVE_PROTO=0
ip address help 2>&1 | grep -q 'proto' && HAVE_PROTO=1

tests_run
exit "$EXIT_STATUS"
