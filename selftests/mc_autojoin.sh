#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multicast addresses added with "autojoin" (IFA_F_MCAUTOJOIN) join their
# group through the netns' autojoin socket.  Whichever way such an address
# goes away, its group must be left: else the socket keeps an entry for
# (group, ifindex) until the netns goes away, adding the address again
# with autojoin on that ifindex fails (EADDRINUSE), and for IPv4 each entry
# counts against igmp_max_memberships in the whole netns (ENOBUFS).
#
# Each case checks kernel state: the group is no longer in the device's
# list ("ip maddr"), and the address can be added again with autojoin,
# after which the group is joined again.
#
# IPv4:
# - delete: "ip address del" of the address itself (RTM_DELADDR);
# - secondary: a secondary deleted with its primary (promote_secondaries=0);
# - lifetime: an address whose valid lifetime expires;
# - teardown, same ifindex: a device deleted and created again with the
#   same ifindex, three rounds;
# - teardown, igmp_max_memberships: more devices created and deleted in
#   turn than igmp_max_memberships (set to 3 in the test's netns);
# - netns move: a device moved to another netns, a new one with its
#   ifindex in the old netns;
# - MTU: the device's MTU set below 68 (NETDEV_CHANGEMTU ->
#   inetdev_destroy()) and back;
# - failed insert: an add whose join succeeds but whose insert fails
#   (a secondary with another scope than its primary);
# - peer: deleting an address that shares IFA_ADDRESS with an autojoin
#   address (a peer) keeps the other address's group;
# - SIOCSIFADDR, SIOCSIFDSTADDR: an ioctl that gives an autojoin address
#   another IFA_ADDRESS leaves the old group;
# - SIOCSIFFLAGS: an alias (label d0:1) deleted by clearing IFF_UP.
# IPv6:
# - delete: "ip address del" (RTM_DELADDR) and the SIOCDIFADDR ioctl;
# - lifetime, teardown (same ifindex), netns move, as for IPv4;
# - MTU: the device's MTU set below 1280 (addrconf_ifdown() as on
#   unregister) and back;
# - link down (keep_addr_on_down=0);
# - disable_ipv6 (with keep_addr_on_down=1, which it overrides);
# - link down and MTU again on a netdevsim device, whose notifiers run
#   under the device's instance lock (it has queue management ops); the
#   IPv4 MTU case cannot, as netdevsim's minimum MTU is 68.  These cases
#   are skipped without netdevsim.
# The ioctls are issued with python3's fcntl.ioctl(); those cases are
# skipped without python3.
#
# Topology: a namespace per case with dummy devices (and a second
# namespace for the moves), or a netdevsim device.  Expected runtime:
# about 35 s under QEMU/TCG.

# lib.sh is not followed without -x (SC1091) and sets or reads ALL_TESTS,
# RET and ksft_* (SC2034, SC2154); test functions run from ALL_TESTS
# (SC2317, SC2329 in shellcheck >= 0.10).
# shellcheck disable=SC1091,SC2034,SC2154,SC2317,SC2329
source "$(dirname "$0")"/lib.sh

ALL_TESTS="
	test_v4_del
	test_v4_secondary
	test_v4_lifetime
	test_v4_teardown_ifindex
	test_v4_teardown_max
	test_v4_netns_move
	test_v4_mtu
	test_v4_failed_insert
	test_v4_peer
	test_v4_ioctl_addr
	test_v4_ioctl_dstaddr
	test_v4_ioctl_alias_down
	test_v6_del
	test_v6_ioctl_del
	test_v6_lifetime
	test_v6_teardown_ifindex
	test_v6_netns_move
	test_v6_mtu
	test_v6_link_down
	test_v6_disable
	test_v6_mtu_nsim
	test_v6_link_down_nsim
"

G4=239.1.1.1
G6=ff0e::1
IFINDEX=1000
NSIM_ID=$((2000 + $$ % 1000))

# dev_add NAME [ARGS...]: a multicast dummy device NAME in $ns, up.
dev_add()
{
	local name=$1; shift

	ip -n "$ns" link add name "$name" "$@" type dummy &&
		ip -n "$ns" link set dev "$name" multicast on up
}

# nsim_add NAME: a netdevsim device in $ns (lib.sh's create_netdevsim),
# renamed NAME, multicast, up; deleted before $ns (a netdevsim device
# outlives its netns).
nsim_add()
{
	local id=$((NSIM_ID++)) dev

	dev=$(create_netdevsim "$id" "$ns" 2>/dev/null) || return
	defer cleanup_netdevsim "$id"
	[[ -n $dev ]] &&
		ip -n "$ns" link set dev "$dev" down &&
		ip -n "$ns" link set dev "$dev" name "$1" &&
		ip -n "$ns" link set dev "$1" multicast on up
}

# setup [KIND]: namespace $ns with d0, a dummy device or (KIND nsim) a
# netdevsim device.
setup()
{
	setup_ns ns || return
	defer cleanup_ns "$ns"
	if [[ ${1:-dummy} == nsim ]]; then
		nsim_add d0
	else
		dev_add d0
	fi
}

# have_nsim: netdevsim can be used (loaded if it is a module).
have_nsim()
{
	[[ -w /sys/bus/netdevsim/new_device ]] && return
	modprobe -q netdevsim 2>/dev/null
	[[ -w /sys/bus/netdevsim/new_device ]]
}

# joined FAMILY GROUP [DEV]: GROUP is joined on DEV (d0) of $ns.
joined()
{
	ip -n "$ns" -j maddr show dev "${3:-d0}" |
		jq -e --arg f "$1" --arg a "$2" '[.[].maddr[] |
			select(.family == $f and .address == $a)] |
			length == 1' >/dev/null
}

# no_addr FAMILY: no FAMILY (4 or 6) address of scope global on d0 of $ns
# (also when d0 has no inet or inet6 device at all).
no_addr()
{
	ip -n "$ns" -j -"$1" addr show dev d0 scope global |
		jq -e -n '[inputs[]?.addr_info[]?] | length == 0' >/dev/null
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

# case_setup NAME [KIND]: RET=0 and a fresh $ns (setup KIND), or a
# failed NAME, or (KIND nsim without netdevsim) a skipped NAME.
case_setup()
{
	RET=0
	if [[ ${2:-} == nsim ]] && ! have_nsim; then
		log_test_skip "$1" "netdevsim not available"
		return 1
	fi
	setup "${2:-}" && return
	RET=1 retmsg="setup failed" log_test "$1"
	return 1
}

# addr_ioctl REQUEST NAME ARGS...: the address ioctl REQUEST on the device
# or alias label NAME of $ns, with python3's fcntl.ioctl():
#   SIOCSIFADDR | SIOCSIFDSTADDR NAME ADDR  (ifreq on an AF_INET socket)
#   SIOCSIFFLAGS NAME FLAGS                 (ifreq on an AF_INET socket)
#   SIOCDIFADDR NAME ADDR PREFIXLEN         (in6_ifreq on an AF_INET6 socket)
addr_ioctl()
{
	ip netns exec "$ns" python3 -c '
import fcntl, socket, struct, sys

req, name, arg = sys.argv[1:4]
nr = {"SIOCSIFFLAGS": 0x8914, "SIOCSIFADDR": 0x8916,
      "SIOCSIFDSTADDR": 0x8918, "SIOCDIFADDR": 0x8936}[req]
if req == "SIOCDIFADDR":
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    ifr = struct.pack("16sIi", socket.inet_pton(socket.AF_INET6, arg),
                      int(sys.argv[4]), socket.if_nametoindex(name))
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if req == "SIOCSIFFLAGS":
        ifru = struct.pack("h", int(arg, 0))
    else:
        ifru = struct.pack("HH4s", socket.AF_INET, 0, socket.inet_aton(arg))
    ifr = struct.pack("16s24s", name.encode(), ifru)
fcntl.ioctl(s, nr, ifr)
' "$@"
}

# addr_del V GROUP/LEN: the address deleted by its own RTM_DELADDR.
addr_del()
{
	local v=$1; shift
	local addr=$1; shift
	local name="ipv$v: address deleted (ip address del)"

	case_setup "$name" || return
	ip -n "$ns" -"$v" addr add "$addr" dev d0 autojoin
	check_err $? "adding $addr failed"
	ip -n "$ns" -"$v" addr del "$addr" dev d0
	check_err $? "deleting $addr failed"
	rejoin "$v" "$addr"
	log_test "$name"
}

test_v4_del() { addr_del 4 "$G4/32"; }
test_v6_del() { addr_del 6 "$G6/128"; }

test_v4_secondary()
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

test_v4_lifetime() { lifetime 4 "$G4/32"; }
test_v6_lifetime() { lifetime 6 "$G6/128"; }

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

test_v4_teardown_ifindex() { teardown_ifindex 4 "$G4/32"; }
test_v6_teardown_ifindex() { teardown_ifindex 6 "$G6/128"; }

test_v4_teardown_max()
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

# netns_move V GROUP/LEN: d0 (ifindex IFINDEX) moved to another netns, a
# new d0 with the same ifindex in $ns.
netns_move()
{
	local v=$1; shift
	local addr=$1; shift
	local name="ipv$v: device moved to another netns"
	local other

	case_setup "$name" || return
	if ! setup_ns other; then
		RET=1 retmsg="setup failed" log_test "$name"
		return
	fi
	defer cleanup_ns "$other"
	ip -n "$ns" link del d0
	dev_add d0 index "$IFINDEX" &&
		ip -n "$ns" -"$v" addr add "$addr" dev d0 autojoin
	check_err $? "adding $addr failed"
	ip -n "$ns" link set d0 netns "$other"
	check_err $? "moving d0 failed"
	dev_add d0 index "$IFINDEX"
	check_err $? "creating d0 with the ifindex of the moved one failed"
	rejoin "$v" "$addr"
	log_test "$name"
}

test_v4_netns_move() { netns_move 4 "$G4/32"; }
test_v6_netns_move() { netns_move 6 "$G6/128"; }

# mtu V GROUP/LEN MTU [KIND]: the MTU of d0 (setup KIND) set to MTU, below
# the family's minimum, which drops every address of the family, then back
# to 1500.
mtu()
{
	local v=$1; shift
	local addr=$1; shift
	local mtu=$1; shift
	local kind=${1:-}
	local name="ipv$v: MTU below the minimum ($mtu) and back"

	name+=${kind:+ (netdevsim)}

	case_setup "$name" "$kind" || return
	ip -n "$ns" -"$v" addr add "$addr" dev d0 autojoin
	check_err $? "adding $addr failed"
	ip -n "$ns" link set dev d0 mtu "$mtu"
	check_err $? "setting MTU $mtu failed"
	no_addr "$v"
	check_err $? "$addr kept with MTU $mtu"
	ip -n "$ns" link set dev d0 mtu 1500
	check_err $? "setting MTU 1500 again failed"
	rejoin "$v" "$addr"
	log_test "$name"
}

test_v4_mtu() { mtu 4 "$G4/32" 67; }
test_v6_mtu() { mtu 6 "$G6/128" 1279; }
test_v6_mtu_nsim() { mtu 6 "$G6/128" 1279 nsim; }

test_v4_failed_insert()
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
test_v4_peer()
{
	local name="ipv4: delete of a peer with the same IFA_ADDRESS"

	case_setup "$name" || return
	ip -n "$ns" addr add 239.1.1.2 peer "$G4/32" dev d0 autojoin &&
		ip -n "$ns" addr add 239.1.1.3 peer "$G4/32" dev d0
	check_err $? "adding the addresses failed"
	ip -n "$ns" addr del 239.1.1.3 peer "$G4/32" dev d0
	check_err $? "deleting 239.1.1.3 failed"
	joined inet "$G4"
	check_err $? "group $G4 of 239.1.1.2 left when 239.1.1.3 was deleted"
	ip -n "$ns" addr del 239.1.1.2 peer "$G4/32" dev d0
	check_err $? "deleting 239.1.1.2 failed"
	! joined inet "$G4"
	check_err $? "group $G4 still joined after 239.1.1.2 was deleted"
	log_test "$name"
}

# ioctl_case V NAME ADD REQ: the address "ADD" (words) added with autojoin
# to d0, then "addr_ioctl REQ" (words): the group of G4 or G6 is left.
ioctl_case()
{
	local v=$1; shift
	local name=$1; shift
	local add=$1; shift
	local req=$1; shift
	local addr=$G4/32

	[[ $v == 6 ]] && addr=$G6/128
	if ! command -v python3 >/dev/null; then
		log_test_skip "$name" "python3 not installed"
		return
	fi
	case_setup "$name" || return
	# shellcheck disable=SC2086 # ADD is words
	ip -n "$ns" -"$v" addr add $add dev d0 autojoin
	check_err $? "adding $add failed"
	# shellcheck disable=SC2086 # REQ is words
	addr_ioctl $req
	check_err $? "ioctl $req failed"
	rejoin "$v" "$addr"
	log_test "$name"
}

test_v4_ioctl_addr()
{
	ioctl_case 4 "ipv4: SIOCSIFADDR" "$G4/32" "SIOCSIFADDR d0 10.0.0.1"
}

test_v4_ioctl_dstaddr()
{
	ioctl_case 4 "ipv4: SIOCSIFDSTADDR" "239.1.1.2 peer $G4/32" \
		"SIOCSIFDSTADDR d0 10.0.0.2"
}

test_v4_ioctl_alias_down()
{
	ioctl_case 4 "ipv4: SIOCSIFFLAGS without IFF_UP on an alias" \
		"$G4/32 label d0:1" "SIOCSIFFLAGS d0:1 0"
}

test_v6_ioctl_del()
{
	ioctl_case 6 "ipv6: SIOCDIFADDR" "$G6/128" "SIOCDIFADDR d0 $G6 128"
}

# link_down [KIND]: d0 (setup KIND) down and up again.
link_down()
{
	local kind=${1:-}
	local name="ipv6: link down${kind:+ (netdevsim)}"

	case_setup "$name" "$kind" || return
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

test_v6_link_down() { link_down; }
test_v6_link_down_nsim() { link_down nsim; }

# keep_addr_on_down=1 would keep the address on link down; disable_ipv6
# drops it all the same.
test_v6_disable()
{
	local name="ipv6: disable_ipv6"

	case_setup "$name" || return
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.keep_addr_on_down=1 \
		net.ipv6.conf.d0.keep_addr_on_down=1
	ip -n "$ns" -6 addr add "$G6/128" dev d0 autojoin
	check_err $? "adding $G6 failed"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.d0.disable_ipv6=1
	check_err $? "disabling IPv6 on d0 failed"
	no_addr 6
	check_err $? "$G6 kept with disable_ipv6=1"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.d0.disable_ipv6=0
	check_err $? "enabling IPv6 on d0 again failed"
	rejoin 6 "$G6/128"
	log_test "$name"
}

require_command jq
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit "$ksft_skip"; }
trap 'defer_scopes_cleanup; cleanup_all_ns' EXIT

tests_run
exit "$EXIT_STATUS"
