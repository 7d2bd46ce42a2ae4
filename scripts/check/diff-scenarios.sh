#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scenarios of `make check-diff` (scripts/check/check-diff.sh): IPv4
# address layouts whose locals, networks and broadcasts collide, and
# delete requests on them; IPv6 layouts whose prefixes collide (temporary,
# tentative, noprefixroute and finite-lifetime addresses, routes with a
# prefsrc), and single and bulk deletes on them; IPv4 layouts built by
# add requests (of four scopes, replaces, duplicates) among deletes.
#
#   diff-scenarios.sh gen SEED N [N6 [NA]] >FILE  on the host: N IPv4, N6
#                                     (0) IPv6 and NA (0) IPv4 add
#                                     scenarios from SEED
#   diff-scenarios.sh run FILE STATES        in the guest: run them all
#
# FILE: "# scenario K" starts an IPv4 scenario, "# scenario6 K" an IPv6
# one, "# scenarioa K" one of IPv4 adds (gena_scenario), then one command
# a line: "S CMD" (setup) or "R CMD" (a request: the
# state is dumped after it).  CMD is an `ip` command (run in the
# scenario's netns; `ip -4` or `ip -6`), "promote DEV 0|1"
# (net.ipv4.conf.DEV.promote_secondaries), "flush MODE DEV [ADDR/LEN]"
# (selftests/ifa_flusher -m MODE; MODE flag sends IFA_F_FLUSH, bulk one
# RTM_DELADDR with NLM_F_BULK), "flush6 DEV" (ifa_flusher -6 -m bulk),
# "sysctl KEY VALUE" (/proc/sys/net/KEY) or "ready DEV..." (waits for the
# devices' IPv6 to come up: see wait_ready).  A kernel without IFA_F_FLUSH
# runs "flush flag" with promote_secondaries=0 around it, the flag's
# documented meaning; one without bulk delete runs "flush bulk" as "flush
# dump" (each address in dump order) with promote_secondaries=0 around it,
# what a bulk delete must leave; one without IPv6 bulk delete runs
# "flush6" as `ifa_flusher -6 -m dump` (one RTM_DELADDR per address, in
# dump order), what the IPv6 bulk delete must leave.  The counts of
# deleted and gone addresses, which differ between one bulk request and
# one request per address, are left out of a bulk flush's output.
#
# STATES gets, per scenario, every command with its exit status (a run of
# `ip` commands: the batch's) and error text, and after the setup and after
# each request the address list (`ip -4 -o addr show` or `ip -6 -o addr
# show`, in kernel order) and all the family's routes (`ip -4|-6 route
# show table all`, sorted).  Nothing depends on time: IPv6's volatile
# fields are masked (lifetimes and route expiry counting down, the random
# interface ids of temporary addresses; see mask6) and its asynchronous
# work is waited for (DAD: see wait_settled).
# Not -e: a request that fails is part of the state compared (its exit
# status and error are recorded), not the end of the run.
set -uo pipefail

# --- generator (host) ---------------------------------------------------

# A small pool, so that locals, networks and broadcasts coincide across
# prefix lengths (10.0.0.255 is the broadcast of the /24s and a local...).
POOL=(10.0.0.0 10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.127 10.0.0.128 10.0.0.255
	10.0.255.255 10.1.0.1 10.255.255.255)
# shellcheck disable=SC2034 # read by draw_sub (a nameref)
PLENS=(8 16 24 25 30 31 32)
DEVS=(d0 d0 d0 d1)

# pick VAR WORD...: VAR = one of the words.  No $(...) around anything
# that draws: bash reseeds $RANDOM in a subshell.
pick() {
	local -n v_=$1
	shift
	shift $((RANDOM % $#))
	# shellcheck disable=SC2034 # a nameref
	v_=$1
}

# draw_sub POOL MIN SPAN PLENS PMIN PSPAN: appends to sub MIN + RANDOM %
# SPAN picks from the array named POOL, then to subp PMIN + RANDOM % PSPAN
# picks from the array named PLENS (RANDOM is read in this order, so that
# a seed keeps drawing the scenarios it drew).
draw_sub() {
	local -n pool_=$1 plens_=$4
	local i n x

	n=$(($2 + RANDOM % $3))
	for ((i = 0; i < n; i++)); do
		pick x "${pool_[@]}"
		sub+=("$x")
	done
	n=$(($5 + RANDOM % $6))
	for ((i = 0; i < n; i++)); do
		pick x "${plens_[@]}"
		subp+=("$x")
	done
}

# add_cmd [VERB [scope]]: prints an `ip addr VERB` (add) of a random
# address from this scenario's sub-pool, with "scope" sometimes a scope
# other than global (drawn last: without it, a seed draws what it always
# drew); sets a_del (its delete, by local, prefix and peer as added) and
# a_label.
add_cmd() {
	local dev l p q c b s
	pick dev "${DEVS[@]}"
	pick l "${sub[@]}"
	pick p "${subp[@]}"
	pick q "${sub[@]}"
	c="$l/$p"
	[ $((RANDOM % 5)) -ne 0 ] || c="$l peer $q/$p"
	a_del="ip addr del $c dev $dev"
	pick b "${POOL[@]}"
	case $((RANDOM % 6)) in
	0) c+=" brd +" ;;
	1) c+=" brd $q" ;;
	2) c+=" brd $b" ;;
	esac
	a_label=
	if [ $((RANDOM % 4)) -eq 0 ]; then
		a_label="$dev:$((RANDOM % 3))"
		c+=" label $a_label"
	fi
	[ $((RANDOM % 6)) -ne 0 ] || c+=" noprefixroute"
	[ $((RANDOM % 6)) -ne 0 ] || c+=" metric $((10 + RANDOM % 2))"
	if [ "${2:-}" = scope ]; then
		pick s '' '' '' '' ' scope link' ' scope host' ' scope site'
		c+=$s
	fi
	echo "ip addr ${1:-add} $c dev $dev"
}

# setup4: an IPv4 scenario's sub-pool (2-4 locals, 2-3 prefix lengths,
# in sub and subp) and its setup lines: two dummy devices, up, each with
# a random promote_secondaries.
setup4() {
	sub=() subp=()
	draw_sub POOL 2 3 PLENS 2 2
	echo "S ip link add d0 type dummy"
	echo "S ip link add d1 type dummy"
	echo "S ip link set d0 up"
	echo "S ip link set d1 up"
	echo "S promote d0 $((RANDOM % 2))"
	echo "S promote d1 $((RANDOM % 2))"
}

gen_scenario() {
	local i n a p dev w dels=() labels=()
	setup4
	n=$((3 + RANDOM % 6))
	for ((i = 0; i < n; i++)); do
		printf 'S '
		add_cmd
		dels+=("$a_del")
		[ -z "$a_label" ] || labels+=("$a_del label $a_label")
	done
	# Routes with a prefsrc (main or table 100) and via a gateway.
	n=$((RANDOM % 3))
	for ((i = 0; i < n; i++)); do
		pick dev d0 d1
		pick a "${sub[@]}"
		pick w '' ' table 100'
		echo "S ip route add 192.168.$i.0/24 dev $dev src $a$w"
	done
	if [ $((RANDOM % 3)) -eq 0 ]; then
		pick a "${sub[@]}"
		pick w '' ' table 100'
		echo "S ip route add 172.16.0.0/16 via $a dev d0$w"
	fi
	n=$((5 + RANDOM % 7))
	for ((i = 0; i < n; i++)); do
		pick dev "${DEVS[@]}"
		pick a "${sub[@]}"
		pick p "${subp[@]}"
		case $((RANDOM % 22)) in
		0 | 1 | 2 | 3 | 4) pick w "${dels[@]}" && echo "R $w" ;;
		5 | 6) echo "R ip addr del $a dev $dev" ;;
		7) echo "R ip addr del $a/$p dev $dev" ;;
		8) [ ${#labels[@]} -eq 0 ] || { pick w "${labels[@]}" && echo "R $w"; } ;;
		9)
			pick w '' ' secondary' ' primary' " label $dev:1"
			echo "R ip addr flush dev $dev$w"
			;;
		10) echo "R ip addr flush dev $dev to $a/$p" ;;
		11 | 12) echo "R flush flag $dev" ;;
		13) echo "R flush flag $dev $a/$p" ;;
		20 | 21) echo "R flush bulk $dev" ;;
		14)
			pick w dump secfirst
			echo "R flush $w $dev"
			;;
		15) [ $((n - i)) -gt 2 ] || echo "R ip link del $dev" ;;
		16 | 17)
			printf 'R '
			add_cmd
			;;
		18) echo "S promote $dev $((RANDOM % 2))" ;;
		19)
			pick w "${sub[@]}"
			echo "R ip addr del $a peer $w/$p dev $dev"
			;;
		esac
	done
}

# Adds: IPv4 layouts built by requests, the state dumped after each:
# duplicates, secondaries of another scope than their subnet's (EINVAL),
# primaries of four scopes, peers, labels, replaces and changes of
# existing addresses (NLM_F_REPLACE), and deletes between them, so that
# adds land after removed primaries and a removed last address.
gena_scenario() {
	local i n w dev dels=()
	setup4
	n=$((8 + RANDOM % 11))
	for ((i = 0; i < n; i++)); do
		case $((RANDOM % 12)) in
		0 | 1 | 2 | 3 | 4 | 5)
			printf 'R '
			add_cmd add scope
			dels+=("$a_del")
			;;
		6)
			printf 'R '
			add_cmd replace scope
			;;
		7)
			printf 'R '
			add_cmd change scope
			;;
		8 | 9) [ ${#dels[@]} -eq 0 ] || { pick w "${dels[@]}" && echo "R $w"; } ;;
		10)
			pick dev d0 d1
			echo "S promote $dev $((RANDOM % 2))"
			;;
		11)
			pick dev d0 d1
			pick w "${sub[@]}"
			echo "R ip addr del $w dev $dev"
			;;
		esac
	done
}

# IPv6: a pool whose prefixes coincide across lengths (2001:db8:1::/48,
# /56 and /63 hold 2001:db8:1:1::/64; ::1 and ::2 share their /64 and
# /96 but not their /127; 2001:db8:1:0:8000::1 is in the other /65), two
# link-local addresses, and prefix lengths weighted to 64 (temporary
# addresses need it).  The devices have fixed MAC addresses, so their
# EUI-64 link-local addresses are the same on every run.
# shellcheck disable=SC2034 # read by draw_sub (a nameref)
POOL6=(2001:db8:1::1 2001:db8:1::2 2001:db8:1::ffff 2001:db8:1:0:8000::1
	2001:db8:1:1::1 2001:db8:1:1::2 2001:db8:2::1 2001:db8::1 fd00::1
	fe80::1 fe80::2)
# shellcheck disable=SC2034 # read by draw_sub (a nameref)
PLENS6=(128 48 56 63 65 96 127)
# The devices that get addresses: two dummies (no DAD: the kernel ends it
# at once) and one end of a veth pair, whose DAD does not end during a
# scenario: its retransmit time is set to an hour, so its addresses
# without nodad stay tentative.  (Not more: temporary addresses need a
# preferred lifetime, a day, above regen_advance, which counts three
# retransmit times.)  The other end keeps its link-local address only:
# the same address on both ends would make DAD fail, at a time that
# varies.
DEVS6=(d0 d0 d0 d1 v0 v0)
# Bulk delete targets: also the veth's other end, and lo (::1 when up).
FDEVS6=(d0 d0 d0 d0 d1 v0 v0 v0p lo)

# add6_cmd: prints an `ip -6 addr add` of a random address from this
# scenario's sub-pool; sets a_del (its delete, as added).
add6_cmd() {
	local dev l p q c
	pick dev "${DEVS6[@]}"
	pick l "${sub[@]}"
	pick p "${subp[@]}"
	c="$l/$p"
	if [ $((RANDOM % 12)) -eq 0 ]; then
		pick q "${sub[@]}"
		c="$l peer $q/$p"
	fi
	a_del="ip addr del $c dev $dev"
	[ $((RANDOM % 2)) -ne 0 ] || c+=" nodad"
	[ $((RANDOM % 5)) -ne 0 ] || c+=" noprefixroute"
	# temporary addresses: mngtmpaddr on a /64 (elsewhere: EINVAL)
	if [ "$p" = 64 ] && [ $((RANDOM % 2)) -eq 0 ] ||
		[ $((RANDOM % 30)) -eq 0 ]; then
		c+=" mngtmpaddr"
	fi
	# Finite lifetimes, long enough that nothing expires or is
	# regenerated during a run; preferred_lft 0: deprecated.
	case $((RANDOM % 8)) in
	0 | 1) c+=" valid_lft 200000 preferred_lft 100000" ;;
	2) c+=" valid_lft 200000 preferred_lft 0" ;;
	esac
	[ $((RANDOM % 6)) -ne 0 ] || c+=" metric $((10 + RANDOM % 2))"
	echo "ip addr add $c dev $dev"
}

gen6_scenario() {
	local i n a p dev w dels=()
	# This scenario's sub-pool: 3-5 addresses, /64 and 1-2 other lengths.
	sub=() subp=(64 64)
	draw_sub POOL6 3 3 PLENS6 1 2
	# use_tempaddr for the devices made after it (the defaults' copy)
	pick w 2 2 2 0
	echo "S sysctl ipv6/conf/default/use_tempaddr $w"
	[ $((RANDOM % 4)) -ne 0 ] || echo "S ip link set lo up"
	echo "S ip link add d0 address 02:00:00:00:00:10 type dummy"
	# sometimes a device without IPv6 (MTU below 1280)
	w=
	[ $((RANDOM % 10)) -ne 0 ] || w=" mtu 1200"
	echo "S ip link add d1 address 02:00:00:00:00:11$w type dummy"
	echo "S ip link add v0 address 02:00:00:00:00:01 type veth peer name v0p address 02:00:00:00:00:02"
	echo "S ip ntable change name ndisc_cache dev v0 retrans 3600000"
	echo "S ip ntable change name ndisc_cache dev v0p retrans 3600000"
	for dev in d0 d1 v0 v0p; do
		echo "S ip link set $dev up"
	done
	echo "S ready v0 v0p"
	n=$((3 + RANDOM % 6))
	for ((i = 0; i < n; i++)); do
		printf 'S '
		add6_cmd
		dels+=("$a_del")
	done
	# Routes with a prefsrc (the device's own address, another device's,
	# or one that is not there: EINVAL), in main or table 100; via a
	# link-local gateway; one of an address's prefix, at another metric.
	n=$((RANDOM % 4))
	for ((i = 0; i < n; i++)); do
		pick dev d0 d0 d1 v0
		pick a "${sub[@]}"
		pick w '' ' table 100'
		echo "S ip route add 2001:db8:f$i::/64 dev $dev src $a$w"
	done
	if [ $((RANDOM % 3)) -eq 0 ]; then
		pick a "${sub[@]}"
		pick w '' ' table 100'
		echo "S ip route add 2001:db8:e::/48 via fe80::99 dev d0 src $a$w"
	fi
	if [ $((RANDOM % 4)) -eq 0 ]; then
		pick dev d0 d1 v0
		echo "S ip route add 2001:db8:1::/64 dev $dev metric 1024"
	fi
	n=$((5 + RANDOM % 6))
	for ((i = 0; i < n; i++)); do
		pick dev "${DEVS6[@]}"
		pick a "${sub[@]}"
		pick p "${subp[@]}"
		case $((RANDOM % 24)) in
		0 | 1 | 2 | 3 | 4) pick w "${dels[@]}" && echo "R $w" ;;
		5) echo "R ip addr del $a/$p dev $dev" ;;
		6) echo "R ip addr del $a dev $dev" ;;
		7 | 8 | 9 | 10 | 11 | 12 | 13)
			pick w "${FDEVS6[@]}"
			echo "R flush6 $w"
			;;
		14)
			pick w '' ' temporary' ' tentative' ' permanent' \
				' dynamic' ' scope link' ' noprefixroute'
			echo "R ip addr flush dev $dev$w"
			;;
		15 | 16 | 17)
			printf 'R '
			add6_cmd
			dels+=("$a_del")
			;;
		18)
			pick w d0 d1 v0
			echo "R ip route add 2001:db8:d::/64 dev $w src $a"
			;;
		19) [ $((n - i)) -gt 2 ] || echo "R ip link del $dev" ;;
		20) echo "R flush6 nosuchdev" ;;
		*)
			# the delete of an address added, on another device
			pick w "${dels[@]}"
			pick a d0 d1 v0
			echo "R ${w% dev *} dev $a"
			;;
		esac
	done
}

# gen SEED N N6 NA: each layer draws from RANDOM=SEED, so that the
# scenarios of a layer of a seed do not depend on the other layers' sizes.
gen() {
	local seed=$1 n=$2 n6=$3 na=$4 k
	RANDOM=$seed
	echo "# seed $seed, $n IPv4, $n6 IPv6 and $na IPv4 add scenarios"
	for ((k = 1; k <= n; k++)); do
		echo "# scenario $k"
		gen_scenario
	done
	RANDOM=$seed
	for ((k = 1; k <= n6; k++)); do
		echo "# scenario6 $k"
		gen6_scenario
	done
	RANDOM=$seed
	for ((k = 1; k <= na; k++)); do
		echo "# scenarioa $k"
		gena_scenario
	done
}

# --- runner (guest) -------------------------------------------------------
# Each scenario runs in one bash in a netns of its own (unshare -n), two
# scenarios at a time.  Exec is what costs under TCG (~100 ms an `ip`):
# the `ip` commands between two other commands go to one `ip -batch`
# (-force: on after an error; the error text and iproute2's "Command
# failed -:N" say which line failed and how), with the state dumps in it,
# each ended by `link show dev lo` as a separator.
#
# IPv6 does part of an address add later, in a work item (DAD):
# addrconf_dad_work() clears the tentative flag of an address on a device
# without neighbour discovery (a dummy) and inserts the local route of an
# address that is not tentative, nodad ones included; a veth's link-local
# address and routes come when linkwatch reports its carrier.  So after
# IPv6 adds (and before anything that is not one) the runner waits for
# what that work shows (wait_settled, wait_ready), reading /proc with
# bash builtins (no exec), and the next `ip -batch` starts with `link set
# dev lo`, a request that changes nothing but takes RTNL, which the work
# holds until it is done.

FLUSHER=$(cd "$(dirname "$0")/../.." && pwd)/selftests/ifa_flusher
T=/tmp/check-diff.$$
DUMP=("addr show" "route show table all" "link show dev lo")
shopt -s extglob

# expand6 ADDR: sets e6 to ADDR's 8 groups, 4 hex digits each.
expand6() {
	local l=$1 r='' g=() h=() i
	if [[ $1 == *::* ]]; then
		l=${1%%::*} r=${1#*::}
	fi
	IFS=: read -ra g <<<"$l"
	IFS=: read -ra h <<<"$r"
	for ((i = ${#g[@]} + ${#h[@]}; i < 8; i++)); do
		g+=(0)
	done
	g+=("${h[@]}")
	printf -v e6 '%04x:' "${g[@]/#/0x}"
	e6=${e6%:}
}

# mask6 LINE: sets m6 to an `ip -6 -o` address or route line without its
# volatile fields: the lifetimes and route expiry counting down (the
# number goes, "forever" and the field's presence stay), and the random
# interface id of a temporary address (replaced by "temporary#K", K
# counting the temporary addresses of the state in kernel order, after
# its prefix, written out: 2001:0db8:0001:0000:temporary#1/64), in its
# address line and in the routes (its local route), which come after the
# addresses.
mask6() {
	local i
	m6=${1//_lft +([0-9])sec/_lft #sec}
	m6=${m6//expires +([0-9])sec/expires #sec}
	if [[ $m6 =~ ^([0-9]+:\ +[^ ]+\ +inet6\ )([^/ ]+)(/[0-9]+)?(.*\ temporary\ .*)$ ]]; then
		expand6 "${BASH_REMATCH[2]}"
		temps+=("${BASH_REMATCH[2]}")
		tokens+=("${e6:0:19}:temporary#${#temps[@]}")
		m6="${BASH_REMATCH[1]}${tokens[-1]}${BASH_REMATCH[3]}${BASH_REMATCH[4]}"
	elif [[ ! $m6 =~ ^[0-9]+:\  ]]; then
		m6=" $m6 "
		for i in "${!temps[@]}"; do
			m6=${m6//" ${temps[i]} "/" ${tokens[i]} "}
		done
		m6=${m6:1:-1}
	fi
}

# run_batch: the pending entries ($text[i]: a command or "" for a state
# only, $dump[i]: 1 if the state follows it) as one `ip -$fam -batch`
# (after `link set dev lo` if $barrier is 1); prints each command, each
# state (addresses in kernel order, then the routes, sorted; IPv6 masked)
# and the batch's exit status and error text.
run_batch() {
	local b=() i l rc a r=() st=0 temps tokens at=()
	[ ${#text[@]} -gt 0 ] || return 0
	[ "$barrier" = 0 ] || b+=("link set dev lo")
	barrier=0
	for i in "${!text[@]}"; do
		[ -z "${text[i]}" ] || b+=("${text[i]}")
		at[i]=${#b[@]}
		[ "${dump[i]}" = 0 ] || b+=("${DUMP[@]}")
	done
	printf '%s\n' "${b[@]}" | ip "-$fam" -o -force -batch - >"$T.o" 2>"$T.e"
	rc=$?
	[ "$fam" = 4 ] || added6
	mapfile -t a <"$T.o"
	for i in "${!text[@]}"; do
		[ -z "${text[i]}" ] || echo "> ${text[i]}"
		[ "${dump[i]}" = 1 ] || continue
		echo "= state"
		r=() temps=() tokens=()
		while [ "$st" -lt ${#a[@]} ]; do
			l=${a[st]}
			st=$((st + 1))
			[[ $l != "1: lo:"* ]] || break
			if [ "$fam" = 6 ]; then
				# no cached (exception) routes: they come and go
				[[ $l != *" cache "* ]] || continue
				mask6 "$l"
				l=$m6
			fi
			if [[ $l =~ ^[0-9]+:\  ]]; then
				echo "$l"
				continue
			fi
			# insertion sort of the routes: no `sort` to exec
			local j=${#r[@]}
			while [ "$j" -gt 0 ] && [[ ${r[j - 1]} > $l ]]; do
				r[j]=${r[j - 1]}
				j=$((j - 1))
			done
			r[j]=$l
		done
		[ ${#r[@]} -eq 0 ] || printf '%s\n' "${r[@]}"
	done
	echo "batch rc=$rc"
	mapfile -t a <"$T.e"
	[ ${#a[@]} -eq 0 ] || printf '%s\n' "${a[@]}"
	text=() dump=()
}

# added6: after an IPv6 batch, adds to $pending the addresses of its
# `addr add` commands that did not fail and whose DAD work ends (not
# those on the veth without nodad: they stay tentative), as "ADDR DEV"
# with ADDR written as /proc/net shows it.
added6() {
	local i w failed=" "
	mapfile -t w <"$T.e"
	for i in "${w[@]}"; do
		[[ $i != "Command failed -:"* ]] || failed+="${i#*:} "
	done
	for i in "${!text[@]}"; do
		[[ ${text[i]} == "addr add "* && $failed != *" ${at[i]} "* ]] ||
			continue
		read -ra w <<<"${text[i]}"
		[[ ${w[-1]} != v* || " ${w[*]} " == *" nodad "* ]] || continue
		expand6 "${w[2]%/*}"
		pending+=("${e6//:/} ${w[-1]}")
	done
}

# A bound on the polls of wait_settled and wait_ready, against a kernel
# that never gets there (a bug: the state printed then differs); the
# polls are of /proc, and the kernel's work is usually done after a few.
POLLS=5000

# wait_settled: waits until no address is tentative on a device without
# neighbour discovery (all but the veth pair v0, v0p: dummies and lo)
# and each address of $pending has its local route, the last thing
# addrconf_dad_completed() changes that a dump shows (a tentative
# address on the veth stays so).  Only the addresses just added: a local
# route can be missing for good (an address deleted with a peer that is
# another address of the device takes the local route of that one).
# Prints "= not settled: ..." if that does not happen.
wait_settled() {
	local a p f d n=0 why have
	while :; do
		have=" "
		while read -r a p _ _ _ _ _ _ f d; do
			[ "$p" != 80 ] || (((16#$f & 0x80000000) == 0)) ||
				have+="$a $d "
		done </proc/net/ipv6_route
		why=
		for a in "${pending[@]}"; do
			[[ $have == *" $a "* ]] || why="$a without its local route"
		done
		while [ -z "$why" ] && read -r a _ _ _ f d; do
			# IFA_F_TENTATIVE
			[[ $d == v* ]] || ((!(16#$f & 0x40))) || why="$a on $d tentative"
		done </proc/net/if_inet6
		[ -n "$why" ] || break
		n=$((n + 1))
		if [ $n -ge $POLLS ]; then
			echo "= not settled: $why"
			break
		fi
	done
	settle=0 barrier=1 pending=()
}

# wait_ready DEV...: waits until each DEV has its fe80::/64 route, which
# addrconf adds with the link-local address when the device becomes ready
# (a veth: when linkwatch reports the carrier the other end brought up).
# An address added before that would run DAD on a device that is not
# ready: kept tentative if permanent, deleted if not, depending on when
# linkwatch runs.
wait_ready() {
	local a p d n=0 want
	for want in "$@"; do
		while :; do
			while read -r a p _ _ _ _ _ _ _ d; do
				[ "$a $p $d" != "fe800000000000000000000000000000 40 $want" ] ||
					break 2
			done </proc/net/ipv6_route
			n=$((n + 1))
			if [ $n -ge $POLLS ]; then
				echo "= not ready: $want"
				break
			fi
		done
	done
	barrier=1
}

# other CMD...: a command that is not `ip`: "promote DEV 0|1", "flush
# MODE DEV [ADDR/LEN]", "flush6 DEV", "sysctl KEY VALUE" or "ready
# DEV..."; prints it, its exit status and output.
other() {
	local f rc mode old=
	printf '> %s\n' "$*"
	: >"$T.e"
	case $1 in
	promote)
		rc=0
		echo "$3" 2>"$T.e" >"/proc/sys/net/ipv4/conf/$2/promote_secondaries" || rc=1
		;;
	sysctl)
		rc=0
		echo "$3" 2>"$T.e" >"/proc/sys/net/$2" || rc=1
		;;
	ready)
		shift
		wait_ready "$@"
		rc=0
		;;
	flush)
		f=/proc/sys/net/ipv4/conf/$3/promote_secondaries
		mode=$2
		if { [ "$2" = flag ] && [ "$FLAG_KNOWN" != 1 ]; } ||
			{ [ "$2" = bulk ] && [ "$BULK_KNOWN" != 1 ]; }; then
			[ "$2" = flag ] || mode=dump
			if [ -f "$f" ]; then
				old=$(<"$f")
				echo 0 >"$f"
			fi
		fi
		"$FLUSHER" -m "$mode" ${4:+-o "$4"} "$3" >"$T.e" 2>&1
		rc=$?
		[ -z "$old" ] || echo "$old" >"$f"
		[ "$2" != bulk ] || sed -i 's/deleted [0-9]* gone [0-9]* //' "$T.e"
		;;
	flush6)
		mode=bulk
		[ "$BULK6_KNOWN" = 1 ] || mode=dump
		"$FLUSHER" -6 -m "$mode" "$2" >"$T.e" 2>&1
		rc=$?
		;;
	esac
	echo "rc=$rc"
	mapfile -t old <"$T.e"
	[ "$1" != flush6 ] || old=("${old[@]/deleted +([0-9]) gone +([0-9]) /}")
	[ ${#old[@]} -eq 0 ] || printf '%s\n' "${old[@]}"
}

# is_add CMD: whether the `ip` command CMD may leave IPv6 work to a work
# item (an address add, a device brought up).
is_add() {
	[[ $1 == "ip addr add "* || $1 == "ip link set "*" up" ]]
}

# one 4|6|a K LINE...: scenario K of that layer (a: the IPv4 adds),
# inside its own netns.  The state is dumped after the setup and after
# each request.
# shellcheck disable=SC2086 # "other $cmd": the words of a line of FILE
one() {
	local fam=${1/a/4} line cmd dumped=0 text=() dump=() settle=0 barrier=0 pending=()
	local name=scenario
	[ "$1" != 6 ] || name=scenario6
	[ "$1" != a ] || name=scenarioa
	echo "### $name $2"
	shift 2
	if [ "$fam" = 4 ]; then
		echo 0 >/proc/sys/net/ipv4/conf/all/promote_secondaries
		echo 0 >/proc/sys/net/ipv4/conf/default/promote_secondaries
	fi
	for line in "$@"; do
		cmd=${line:2}
		# IPv6: the state only once the work of the adds is done
		if [ $settle = 1 ] && { [ "${line:0:1}" = R ] || ! is_add "$cmd"; }; then
			run_batch
			wait_settled
		fi
		if [ "${line:0:1}" = R ] && [ $dumped = 0 ]; then
			text+=("") dump+=(1)
			dumped=1
		fi
		case $line in
		"S ip "*)
			text+=("${cmd#ip }") dump+=(0)
			[ "$fam" = 4 ] || ! is_add "$cmd" || settle=1
			;;
		"R ip "*)
			if [ "$fam" = 6 ] && is_add "$cmd"; then
				text+=("${cmd#ip }") dump+=(0)
				run_batch
				wait_settled
				text+=("") dump+=(1)
			else
				text+=("${cmd#ip }") dump+=(1)
			fi
			;;
		*)
			run_batch
			other $cmd
			[ "${line:0:1}" = S ] || text+=("") dump+=(1)
			;;
		esac
	done
	run_batch
	rm -f "$T.o" "$T.e"
}

run() {
	local file=$1 states=$2 lines=() k=0 fam=4 line d=/tmp/check-diff.out i running=0
	"$FLUSHER" -c >/dev/null 2>&1
	FLAG_KNOWN=$(($? == 0))
	# bulk delete: "Bulk delete is not supported" on an empty device
	# (ifa_flusher then reports "failed 1")
	BULK_KNOWN=$(unshare -n bash -c "ip link add z0 type dummy &&
		$FLUSHER -m bulk z0 2>&1" | grep -c " failed 0 left 0$")
	BULK6_KNOWN=$(unshare -n bash -c "ip link add z0 type dummy &&
		$FLUSHER -6 -m bulk z0 2>&1" | grep -c " failed 0 left 0$")
	export FLAG_KNOWN BULK_KNOWN BULK6_KNOWN
	echo "check-diff: $(uname -r), IFA_F_FLUSH known: $FLAG_KNOWN," \
		"bulk delete known: $BULK_KNOWN, IPv6 bulk delete known: $BULK6_KNOWN"
	mkdir -p $d
	start() {
		[ "$k" -gt 0 ] || return 0
		# two at a time (2 vCPUs); each writes its own file
		[ "$running" -lt 2 ] || { wait -n; running=$((running - 1)); }
		running=$((running + 1))
		unshare -n bash "$0" one "$fam" "$k" "${lines[@]}" >"$d/$fam.$k" 2>&1 &
	}
	while IFS= read -r line; do
		case $line in
		"# scenario "* | "# scenario6 "* | "# scenarioa "*)
			start
			fam=4
			[[ $line != "# scenario6 "* ]] || fam=6
			[[ $line != "# scenarioa "* ]] || fam=a
			k=${line##* }
			lines=()
			[ $((k % 50)) -ne 1 ] || echo "check-diff: ${line#"# "}"
			;;
		"#"*) ;;
		*) lines+=("$line") ;;
		esac
	done <"$file"
	start
	wait
	grep -E '^# scenario[6a]? ' "$file" | while read -r _ line k; do
		case $line in
		scenario6) fam=6 ;;
		scenarioa) fam=a ;;
		*) fam=4 ;;
		esac
		echo "$d/$fam.$k"
	done | xargs cat >"$states"
	echo "check-diff: done, $(grep -c '^### scenario ' "$states") IPv4," \
		"$(grep -c '^### scenario6 ' "$states") IPv6 and" \
		"$(grep -c '^### scenarioa ' "$states") IPv4 add scenarios," \
		"$(grep -c '^= state' "$states") states"
}

case ${1:-} in
gen) gen "$2" "$3" "${4:-0}" "${5:-0}" ;;
run) run "$2" "$3" ;;
one)
	shift
	one "$@"
	;;
*)
	echo "usage: $0 gen SEED N [N6 [NA]] | run FILE STATES" >&2
	exit 2
	;;
esac
