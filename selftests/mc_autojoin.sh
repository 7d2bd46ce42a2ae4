#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multicast addresses added with "autojoin" (IFA_F_MCAUTOJOIN) join their
# group through the netns' autojoin socket.  Whichever way such an address
# goes away, its group must be left: else the socket keeps an entry for
# (group, ifindex) until the netns goes away, adding the address again
# with autojoin on that ifindex fails, and for IPv4 each entry counts
# against igmp_max_memberships in the whole netns.
#
# IPv4:
# - secondary: a secondary deleted with its primary (promote_secondaries=0);
# - lifetime: an address whose valid lifetime expires;
# - teardown, same ifindex: a device deleted and created again with the
#   same ifindex, three rounds;
# - teardown, igmp_max_memberships: more devices created and deleted in
#   turn than igmp_max_memberships (set to 3 in the test's netns);
# - netns move: a device moved to another netns, a new one with its
#   ifindex in the old netns;
# - failed insert: an add whose join succeeds but whose insert fails
#   (a secondary with another scope than its primary);
# - peer: deleting an address that shares IFA_ADDRESS with an autojoin
#   address (a peer) keeps the other address's group;
# - SIOCSIFADDR, SIOCSIFDSTADDR: an ioctl that gives an autojoin address
#   another IFA_ADDRESS leaves the old group (needs ifconfig).
# IPv6:
# - lifetime, teardown (same ifindex), link down (keep_addr_on_down=0).
#
# Topology: a namespace per case with dummy devices (and a second
# namespace for the move).  Expected runtime: about 10 s under QEMU/TCG.

# lib.sh is not followed without -x (SC1091) and sets or reads ALL_TESTS,
# RET and ksft_* (SC2034, SC2154); test functions run from ALL_TESTS
# (SC2317, SC2329 in shellcheck >= 0.10).
# shellcheck disable=SC1091,SC2034,SC2154,SC2317,SC2329
source "$(dirname "$0")"/lib.sh

ALL_TESTS="
	test_v4_secondary
	test_v4_lifetime
	test_v4_teardown_ifindex
	test_v4_teardown_max
	test_v4_netns_move
	test_v4_failed_insert
	test_v4_peer
	test_v4_ioctl_addr
	test_v4_ioctl_dstaddr
	test_v6_lifetime
	test_v6_teardown_ifindex
	test_v6_link_down
"

G4=239.1.1.1
G6=ff0e::1
IFINDEX=1000

# dev_add NAME [ARGS...]: a multicast dummy device NAME in $ns, up.
dev_add()
{
	local name=$1; shift

	ip -n "$ns" link add name "$name" "$@" type dummy &&
		ip -n "$ns" link set dev "$name" multicast on up
}

# setup: namespace $ns with d0.
setup()
{
	setup_ns ns || return
	defer cleanup_ns "$ns"
	dev_add d0
}

# joined FAMILY GROUP [DEV]: GROUP is joined on DEV (d0) of $ns.
joined()
{
	ip -n "$ns" -j maddr show dev "${3:-d0}" |
		jq -e --arg f "$1" --arg a "$2" '[.[].maddr[] |
			select(.family == $f and .address == $a)] |
			length == 1' >/dev/null
}

# no_addr FAMILY: no FAMILY (4 or 6) address of scope global on d0 of $ns.
no_addr()
{
	ip -n "$ns" -j -"$1" addr show dev d0 scope global |
		jq -e '[.[].addr_info[]] | length == 0' >/dev/null
}

# rejoin FAMILY GROUP/LEN: the group is not joined, the address can be
# added again with autojoin, and then its group is joined.
rejoin()
{
	local fam=inet group=${2%/*}

	[[ $1 == 6 ]] && fam=inet6
	! joined "$fam" "$group"
	check_err $? "group $group still joined"
	ip -n "$ns" -"$1" addr add "$2" dev d0 autojoin
	check_err $? "adding $2 with autojoin again failed"
	joined "$fam" "$group"
	check_err $? "group $group not joined after adding it again"
}

# case_setup NAME: RET=0 and a fresh $ns, or a failed NAME.
case_setup()
{
	RET=0
	setup && return
	RET=1 retmsg="setup failed" log_test "$1"
	return 1
}

v4_secondary()
{
	local name="ipv4: secondary deleted with its primary"

	case_setup "$name" || return
	ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.promote_secondaries=0 \
		net.ipv4.conf.d0.promote_secondaries=0
	ip -n "$ns" addr add 239.1.1.1/24 dev d0 autojoin &&
		ip -n "$ns" addr add 239.1.1.2/24 dev d0 autojoin
	check_err $? "adding the addresses failed"
	ip -n "$ns" addr del 239.1.1.1/24 dev d0
	check_err $? "deleting the primary failed"
	no_addr 4
	check_err $? "the secondary was not deleted with its primary"
	rejoin 4 239.1.1.2/24
	log_test "$name"
}

# The address is added with a lifetime of 1 s and waited for.
lifetime()
{
	local v=$1; shift
	local group=$1; shift
	local name="ipv$v: address whose lifetime expires"

	case_setup "$name" || return
	ip -n "$ns" -"$v" addr add "$group" dev d0 autojoin \
		valid_lft 1 preferred_lft 1
	check_err $? "adding $group failed"
	slowwait 10 no_addr "$v"
	check_err $? "$group did not expire"
	rejoin "$v" "$group"
	log_test "$name"
}

# teardown_ifindex V GROUP/LEN: three rounds of creating d0 with the same
# ifindex, adding the address with autojoin and deleting d0.
teardown_ifindex()
{
	local v=$1; shift
	local addr=$1; shift
	local name="ipv$v: device deleted, created again with its ifindex"
	local i

	case_setup "$name" || return
	ip -n "$ns" link del d0
	for i in 1 2 3; do
		dev_add d0 index "$IFINDEX" &&
			ip -n "$ns" -"$v" addr add "$addr" dev d0 autojoin
		check_err $? "round $i: adding $addr with autojoin failed"
		ip -n "$ns" link del d0
	done
	log_test "$name"
}

v4_teardown_max()
{
	local name="ipv4: more devices deleted than igmp_max_memberships"
	local i

	case_setup "$name" || return
	ip netns exec "$ns" sysctl -qw net.ipv4.igmp_max_memberships=3
	for i in 1 2 3 4 5; do
		dev_add "m$i" &&
			ip -n "$ns" addr add "239.1.1.$i/32" dev "m$i" autojoin
		check_err $? "device $i: adding 239.1.1.$i with autojoin failed"
		ip -n "$ns" link del "m$i"
	done
	log_test "$name"
}

v4_netns_move()
{
	local name="ipv4: device moved to another netns"
	local other

	case_setup "$name" || return
	if ! setup_ns other; then
		RET=1 retmsg="setup failed" log_test "$name"
		return
	fi
	defer cleanup_ns "$other"
	ip -n "$ns" link del d0
	dev_add d0 index "$IFINDEX" &&
		ip -n "$ns" addr add "$G4/32" dev d0 autojoin
	check_err $? "adding $G4 failed"
	ip -n "$ns" link set d0 netns "$other"
	check_err $? "moving d0 failed"
	dev_add d0 index "$IFINDEX"
	check_err $? "creating d0 with the ifindex of the moved one failed"
	rejoin 4 "$G4/32"
	log_test "$name"
}

v4_failed_insert()
{
	local name="ipv4: add that joins, then fails"

	case_setup "$name" || return
	ip -n "$ns" addr add 239.1.1.1/24 dev d0
	check_err $? "adding the primary failed"
	! ip -n "$ns" addr add 239.1.1.2/24 dev d0 scope link autojoin \
		2>/dev/null
	check_err $? "a secondary with another scope than its primary was added"
	rejoin 4 239.1.1.2/24
	log_test "$name"
}

# The group of an address is its IFA_ADDRESS, the peer if it has one (ip
# wants a multicast local address with autojoin: 239.1.1.2 and .3 here).
v4_peer()
{
	local name="ipv4: delete of a peer with the same IFA_ADDRESS"

	case_setup "$name" || return
	ip -n "$ns" addr add 239.1.1.2 peer "$G4/32" dev d0 autojoin &&
		ip -n "$ns" addr add 239.1.1.3 peer "$G4/32" dev d0
	check_err $? "adding the addresses failed"
	ip -n "$ns" addr del 239.1.1.3 peer "$G4/32" dev d0
	check_err $? "deleting 239.1.1.3 failed"
	joined inet "$G4"
	check_err $? "the group of 239.1.1.2 was left"
	ip -n "$ns" addr del 239.1.1.2 peer "$G4/32" dev d0
	check_err $? "deleting 239.1.1.2 failed"
	! joined inet "$G4"
	check_err $? "the group of 239.1.1.2 is still joined"
	log_test "$name"
}

# ioctl_case PEER ARGS NAME: an autojoin address (with a peer if PEER is 1)
# changed with "ifconfig d0 ARGS".
ioctl_case()
{
	local peer=$1; shift
	local args=$1; shift
	local name=$1; shift

	if ! command -v ifconfig >/dev/null; then
		log_test_skip "$name" "ifconfig not installed"
		return
	fi
	case_setup "$name" || return
	if ((peer)); then
		ip -n "$ns" addr add 239.1.1.2 peer "$G4/32" dev d0 autojoin
	else
		ip -n "$ns" addr add "$G4/32" dev d0 autojoin
	fi
	check_err $? "adding the address failed"
	# shellcheck disable=SC2086 # ARGS are words
	ip netns exec "$ns" ifconfig d0 $args
	check_err $? "ifconfig d0 $args failed"
	rejoin 4 "$G4/32"
	log_test "$name"
}

test_v4_secondary() { in_defer_scope v4_secondary; }
test_v4_lifetime() { in_defer_scope lifetime 4 "$G4/32"; }
test_v4_teardown_ifindex() { in_defer_scope teardown_ifindex 4 "$G4/32"; }
test_v4_teardown_max() { in_defer_scope v4_teardown_max; }
test_v4_netns_move() { in_defer_scope v4_netns_move; }
test_v4_failed_insert() { in_defer_scope v4_failed_insert; }
test_v4_peer() { in_defer_scope v4_peer; }
test_v4_ioctl_addr()
{
	in_defer_scope ioctl_case 0 10.0.0.1 "ipv4: SIOCSIFADDR"
}
test_v4_ioctl_dstaddr()
{
	in_defer_scope ioctl_case 1 "dstaddr 10.0.0.2" "ipv4: SIOCSIFDSTADDR"
}
test_v6_lifetime() { in_defer_scope lifetime 6 "$G6/128"; }
test_v6_teardown_ifindex() { in_defer_scope teardown_ifindex 6 "$G6/128"; }

v6_link_down()
{
	local name="ipv6: link down"

	case_setup "$name" || return
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.keep_addr_on_down=0 \
		net.ipv6.conf.d0.keep_addr_on_down=0
	ip -n "$ns" -6 addr add "$G6/128" dev d0 autojoin
	check_err $? "adding $G6 failed"
	ip -n "$ns" link set d0 down
	no_addr 6
	check_err $? "$G6 kept on link down"
	ip -n "$ns" link set d0 up
	rejoin 6 "$G6/128"
	log_test "$name"
}

test_v6_link_down() { in_defer_scope v6_link_down; }

require_command jq
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit "$ksft_skip"; }
trap 'defer_scopes_cleanup; cleanup_all_ns' EXIT

tests_run
exit "$EXIT_STATUS"
