#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What adding and deleting an IPv4 address shows to userspace, which the
# kernel must keep however it finds the place of an address: the order of
# a device's addresses in a dump (primaries sorted by scope, host before
# link before site before global, each scope in the order its addresses
# came; then the secondaries in the order they came), which address
# becomes a secondary, the errors of a duplicate or of a secondary with
# another scope than its subnet's, where a promoted secondary goes, and
# which address a delete that several addresses match removes.
#
# - scopes: primaries of four scopes and secondaries, added in mixed order;
# - errors: EEXIST and EINVAL with their extack messages, and "Address not
#   found" for a delete that matches nothing;
# - promotion: a promoted secondary goes behind the other primaries of
#   its scope, and the addresses added next see it as the subnet's
#   primary and the device's last (promote_secondaries=1);
# - unlink: the addresses added after the device's last address or last
#   primary went take their place;
# - delete: a delete by local address alone that two subnets match
#   removes the first in the list; with the prefix, the one named;
# - SIOCSIFNETMASK: an address the ioctl gives another mask goes behind
#   the primaries of its scope;
# - SIOCSIFADDR: an alias set to an address of an existing subnet with
#   another scope fails with EEXIST if the address is the subnet's first,
#   else with EINVAL, a copy of a secondary included (the insert path of
#   the ioctl, which RTM_NEWADDR's own duplicate check does not hide);
# - lifetime: a primary whose lifetime expires takes its secondaries with
#   it (promote_secondaries=0) or has one promoted (=1), at its place;
#   a primary and a secondary of its subnet that expire both go, and the
#   subnet's permanent secondary goes along (=0) or is promoted (=1).
# The ioctls are issued with python3's fcntl.ioctl(); those cases are
# skipped without python3.
#
# Topology: a namespace per case with one dummy device, d0.  Every
# namespace starts with promote_secondaries=0, the kernel's default,
# whatever the host sets.  Expected runtime: about 15 s under QEMU/TCG.

# lib.sh is not followed without -x (SC1091) and sets or reads ALL_TESTS,
# RET and ksft_* (SC2034, SC2154); test functions run from ALL_TESTS
# (SC2317, SC2329 in shellcheck >= 0.10).
# shellcheck disable=SC1091,SC2034,SC2154,SC2317,SC2329
source "$(dirname "$0")"/lib.sh

ALL_TESTS="
	test_scopes
	test_errors
	test_promotion
	test_unlink
	test_delete
	test_ioctl_netmask
	test_ioctl_addr
	test_lifetime_promote
	test_lifetime_no_promote
	test_lifetime_together_promote
	test_lifetime_together_no_promote
"

# case_setup NAME: RET=0 and a fresh $ns with d0 (dummy, up), or a
# failed NAME.
case_setup()
{
	RET=0
	if setup_ns ns; then
		defer cleanup_ns "$ns"
		ip netns exec "$ns" sysctl -qw \
			net.ipv4.conf.all.promote_secondaries=0 \
			net.ipv4.conf.default.promote_secondaries=0 &&
			ip -n "$ns" link add d0 type dummy &&
			ip -n "$ns" link set d0 up && return
	fi
	RET=1 retmsg="setup failed" log_test "$1"
	return 1
}

# promote 0|1: promote_secondaries on d0.
promote()
{
	ip netns exec "$ns" sysctl -qw \
		net.ipv4.conf.all.promote_secondaries="$1" \
		net.ipv4.conf.d0.promote_secondaries="$1"
}

# add ADDR/LEN [ARGS...]: the address added to d0.
add()
{
	local a=$1; shift

	ip -n "$ns" addr add "$a" dev d0 "$@"
	check_err $? "adding $a $* failed"
}

# addrs: d0's IPv4 addresses in dump order, "ADDR/LEN SCOPE[ sec]" each,
# separated by ", ".
addrs()
{
	ip -n "$ns" -j -4 addr show dev d0 |
		jq -r '[.[].addr_info[] | "\(.local)/\(.prefixlen) \(.scope)" +
			(if .secondary then " sec" else "" end)] | join(", ")'
}

# expect WHAT EXPECTED: d0's addresses are EXPECTED (see addrs).
expect()
{
	local got

	got=$(addrs)
	[[ $got == "$2" ]]
	check_err $? "$1: expected \"$2\", got \"$got\""
}

# fails ERRMSG CMD...: CMD fails and prints ERRMSG (an extack message).
fails()
{
	local msg=$1 out; shift

	out=$("$@" 2>&1) && { check_err 1 "$* did not fail"; return; }
	[[ $out == *"$msg"* ]]
	check_err $? "$*: expected \"$msg\", got \"$out\""
}

# addr_ioctl REQUEST NAME ADDR: SIOCSIFADDR or SIOCSIFNETMASK on the device
# or alias label NAME of $ns, with python3's fcntl.ioctl(); prints the
# errno and fails if the ioctl fails.
addr_ioctl()
{
	ip netns exec "$ns" python3 -c '
import fcntl, socket, struct, sys

req, name, addr = sys.argv[1:4]
nr = {"SIOCSIFADDR": 0x8916, "SIOCSIFNETMASK": 0x891c}[req]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ifru = struct.pack("HH4s", socket.AF_INET, 0, socket.inet_aton(addr))
try:
    fcntl.ioctl(s, nr, struct.pack("16s24s", name.encode(), ifru))
except OSError as e:
    print(e.errno)
    sys.exit(1)
' "$@"
}

test_scopes()
{
	local name="scopes: primaries by scope, then secondaries"

	case_setup "$name" || return
	add 10.0.0.1/24
	add 10.1.0.1/24 scope link
	add 10.0.0.2/24
	add 10.2.0.1/24 scope host
	add 10.3.0.1/24
	add 10.1.0.2/24 scope link
	add 10.4.0.1/24 scope site
	add 10.5.0.1/24 scope host
	add 10.0.0.3/24
	expect "mixed scopes" "10.2.0.1/24 host, 10.5.0.1/24 host, \
10.1.0.1/24 link, 10.4.0.1/24 site, 10.0.0.1/24 global, 10.3.0.1/24 global, \
10.0.0.2/24 global sec, 10.1.0.2/24 link sec, 10.0.0.3/24 global sec"
	log_test "$name"
}

test_errors()
{
	local name="errors: EEXIST, EINVAL, not found"

	case_setup "$name" || return
	add 10.0.0.1/24
	add 10.0.0.2/24
	fails "Address already assigned" ip -n "$ns" addr add 10.0.0.1/24 dev d0
	fails "Address already assigned" ip -n "$ns" addr add 10.0.0.2/24 dev d0
	fails "Invalid scope value" \
		ip -n "$ns" addr add 10.0.0.3/24 dev d0 scope link
	fails "Address not found" ip -n "$ns" addr del 10.0.0.3/24 dev d0
	fails "Address not found" ip -n "$ns" addr del 10.0.0.1/25 dev d0
	# the same local address in another subnet is another address
	add 10.0.0.1/25
	expect "after the errors" \
		"10.0.0.1/24 global, 10.0.0.1/25 global, 10.0.0.2/24 global sec"
	log_test "$name"
}

test_promotion()
{
	local name="promotion: place of the promoted secondary"

	case_setup "$name" || return
	promote 1
	check_err $? "setting promote_secondaries failed"
	add 10.0.0.1/24
	add 10.1.0.1/24
	add 10.0.0.2/24
	add 10.0.0.3/24
	ip -n "$ns" addr del 10.0.0.1/24 dev d0
	check_err $? "deleting 10.0.0.1/24 failed"
	expect "promoted behind the other primary" \
		"10.1.0.1/24 global, 10.0.0.2/24 global, 10.0.0.3/24 global sec"
	# the promoted primary is the subnet's and the last primary
	add 10.0.0.4/24
	add 10.2.0.1/24
	expect "adds after the promotion" "10.1.0.1/24 global, \
10.0.0.2/24 global, 10.2.0.1/24 global, 10.0.0.3/24 global sec, \
10.0.0.4/24 global sec"
	# a narrower primary behind the subnet: the promoted one takes the
	# place of the one that goes
	add 10.3.0.1/24 scope link
	add 10.3.0.2/24 scope link
	ip -n "$ns" addr del 10.3.0.1/24 dev d0
	check_err $? "deleting 10.3.0.1/24 failed"
	add 10.4.0.1/24 scope host
	add 10.5.0.1/24 scope link
	expect "promoted in place" "10.4.0.1/24 host, 10.3.0.2/24 link, \
10.5.0.1/24 link, 10.1.0.1/24 global, 10.0.0.2/24 global, \
10.2.0.1/24 global, 10.0.0.3/24 global sec, 10.0.0.4/24 global sec"
	log_test "$name"
}

test_unlink()
{
	local name="unlink: adds after the last address and last primary went"

	case_setup "$name" || return
	add 10.0.0.1/24
	add 10.0.0.2/24
	add 10.0.0.3/24
	ip -n "$ns" addr del 10.0.0.3/24 dev d0
	check_err $? "deleting 10.0.0.3/24 failed"
	add 10.0.0.4/24
	expect "after the last address" "10.0.0.1/24 global, \
10.0.0.2/24 global sec, 10.0.0.4/24 global sec"
	add 10.1.0.1/24
	ip -n "$ns" addr del 10.1.0.1/24 dev d0
	check_err $? "deleting 10.1.0.1/24 failed"
	add 10.2.0.1/24
	add 10.0.0.5/24
	expect "after the last primary" "10.0.0.1/24 global, \
10.2.0.1/24 global, 10.0.0.2/24 global sec, 10.0.0.4/24 global sec, \
10.0.0.5/24 global sec"
	log_test "$name"
}

test_delete()
{
	local name="delete: by local address alone, by prefix"

	case_setup "$name" || return
	add 10.0.0.1/24
	add 10.0.0.1/16
	add 10.0.0.2/24
	# the local address alone matches both subnets: the first goes,
	# with its secondary (promote_secondaries=0)
	ip -n "$ns" addr del 10.0.0.1 dev d0 2>/dev/null
	check_err $? "deleting 10.0.0.1 failed"
	expect "by local address" "10.0.0.1/16 global"
	add 10.0.0.1/24
	ip -n "$ns" addr del 10.0.0.1/24 dev d0
	check_err $? "deleting 10.0.0.1/24 failed"
	expect "by prefix" "10.0.0.1/16 global"
	log_test "$name"
}

# SIOCSIFNETMASK deletes the address and inserts it again with the mask.
test_ioctl_netmask()
{
	local name="SIOCSIFNETMASK: the address goes behind its scope"

	if ! command -v python3 >/dev/null; then
		log_test_skip "$name" "python3 not available"
		return
	fi
	case_setup "$name" || return
	add 10.0.0.1/24
	add 10.1.0.1/24 label d0:1
	add 10.2.0.1/24 scope link label d0:2
	add 10.1.0.2/24
	addr_ioctl SIOCSIFNETMASK d0 255.255.0.0 >/dev/null
	check_err $? "SIOCSIFNETMASK failed"
	expect "new mask" "10.2.0.1/24 link, 10.1.0.1/24 global, \
10.0.0.1/16 global, 10.1.0.2/24 global sec"
	log_test "$name"
}

# SIOCSIFADDR on a new alias makes a global /8 (10.0.0.0/8) address.
# RTM_NEWADDR finds a duplicate before the insert path does (its own
# lookup, "Address already assigned"): the ioctl reaches that path.
test_ioctl_addr()
{
	local name="SIOCSIFADDR: EEXIST for the first address, else EINVAL"
	local err

	if ! command -v python3 >/dev/null; then
		log_test_skip "$name" "python3 not available"
		return
	fi
	case_setup "$name" || return
	add 10.0.0.1/8 scope link
	add 10.0.0.2/8 scope link
	err=$(addr_ioctl SIOCSIFADDR d0:1 10.0.0.1)
	[[ $err == 17 ]]
	check_err $? "the first address, another scope: want 17 (EEXIST): $err"
	err=$(addr_ioctl SIOCSIFADDR d0:2 10.0.0.2)
	[[ $err == 22 ]]
	check_err $? "a secondary, another scope: want 22 (EINVAL): $err"
	err=$(addr_ioctl SIOCSIFADDR d0:3 10.0.0.3)
	[[ $err == 22 ]]
	check_err $? "a new address, another scope: want 22 (EINVAL): $err"
	addr_ioctl SIOCSIFADDR d0:4 11.0.0.1 >/dev/null
	check_err $? "SIOCSIFADDR of a new subnet failed"
	expect "after the ioctls" \
		"10.0.0.1/8 link, 11.0.0.1/8 global, 10.0.0.2/8 link sec"
	log_test "$name"
}

# gone ADDR/LEN: d0 no longer has the address.
gone()
{
	! ip -n "$ns" -4 -o addr show dev d0 | grep -qF " $1 "
}

# lifetime WHAT 0|1 WANT ADDR...: with promote_secondaries 0 or 1, the
# addresses ADDR (/24s of 10.1.0.0, its primary 10.1.0.1 first) expire,
# in one run of the lifetime check or one after the other; another
# primary before their subnet and one after it, the subnet's other
# secondaries permanent; WANT: the addresses left.
lifetime()
{
	local name="lifetime: $1 promote_secondaries=$2" pro=$2 want=$3 a

	shift 3
	case_setup "$name" || return
	promote "$pro"
	check_err $? "setting promote_secondaries failed"
	add 10.0.0.1/24
	add 10.1.0.1/24
	add 10.2.0.1/24
	add 10.1.0.2/24
	add 10.1.0.3/24
	# The lifetimes once every address is there: on a slow kernel an
	# address given one at its add can expire before the next add.
	for a in "$@"; do
		ip -n "$ns" addr change "$a/24" dev d0 \
			valid_lft 1 preferred_lft 1
		check_err $? "giving $a/24 a lifetime failed"
	done
	for a in "$@"; do
		slowwait 10 gone "$a/24"
		check_err $? "$a/24 did not expire"
	done
	expect "after the expiry" "$want"
	log_test "$name"
}

test_lifetime_promote()
{
	lifetime "expiry with" 1 "10.0.0.1/24 global, 10.2.0.1/24 global, \
10.1.0.2/24 global, 10.1.0.3/24 global sec" 10.1.0.1
}

test_lifetime_no_promote()
{
	lifetime "expiry with" 0 "10.0.0.1/24 global, 10.2.0.1/24 global" \
		10.1.0.1
}

test_lifetime_together_promote()
{
	lifetime "two of a subnet expire," 1 \
		"10.0.0.1/24 global, 10.2.0.1/24 global, 10.1.0.3/24 global" \
		10.1.0.1 10.1.0.2
}

test_lifetime_together_no_promote()
{
	lifetime "two of a subnet expire," 0 \
		"10.0.0.1/24 global, 10.2.0.1/24 global" 10.1.0.1 10.1.0.2
}

require_command jq
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit "$ksft_skip"; }
trap 'defer_scopes_cleanup; cleanup_all_ns' EXIT

tests_run
exit "$EXIT_STATUS"
