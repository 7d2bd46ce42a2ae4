#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scenarios of `make check-diff` (scripts/check/check-diff.sh): IPv4
# address layouts whose locals, networks and broadcasts collide, and
# delete requests on them.
#
#   diff-scenarios.sh gen SEED N >FILE     on the host: N scenarios from SEED
#   diff-scenarios.sh run FILE STATES      in the guest: run them all
#
# FILE: "# scenario K" starts a scenario, then one command a line: "S CMD"
# (setup) or "R CMD" (a request: the state is dumped after it).  CMD is an
# `ip` command (run in the scenario's netns), "promote DEV 0|1"
# (net.ipv4.conf.DEV.promote_secondaries) or "flush MODE DEV [ADDR/LEN]"
# (selftests/ifa_flusher -m MODE; MODE flag sends IFA_F_FLUSH, bulk one
# RTM_DELADDR with NLM_F_BULK).  A kernel without IFA_F_FLUSH runs "flush
# flag" with promote_secondaries=0 around it, the flag's documented
# meaning; one without bulk delete runs "flush bulk" as "flush dump" (each
# address in dump order) with promote_secondaries=0 around it, what a bulk
# delete must leave.  The counts of deleted and gone addresses, which
# differ between one bulk request and one request per address, are left
# out of a bulk flush's output.
#
# STATES gets, per scenario, every command with its exit status (a run of
# `ip` commands: the batch's) and error text, and after the setup and after
# each request the address list (`ip -4 -o addr show`, in kernel order) and
# all IPv4 routes (`ip -4 route show table all`, sorted).  Nothing depends
# on time.
# Not -e: a request that fails is part of the state compared (its exit
# status and error are recorded), not the end of the run.
set -uo pipefail

# --- generator (host) ---------------------------------------------------

# A small pool, so that locals, networks and broadcasts coincide across
# prefix lengths (10.0.0.255 is the broadcast of the /24s and a local...).
POOL=(10.0.0.0 10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.127 10.0.0.128 10.0.0.255
	10.0.255.255 10.1.0.1 10.255.255.255)
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

# add_cmd: prints an `ip addr add` of a random address from this
# scenario's sub-pool; sets a_del (its delete, by local, prefix and peer
# as added) and a_label.
add_cmd() {
	local dev l p q c b
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
	echo "ip addr add $c dev $dev"
}

gen_scenario() {
	local i n a p dev w dels=() labels=()
	# This scenario's sub-pool: 2-4 locals, 2-3 prefix lengths.
	sub=() subp=()
	n=$((2 + RANDOM % 3))
	for ((i = 0; i < n; i++)); do
		pick a "${POOL[@]}"
		sub+=("$a")
	done
	n=$((2 + RANDOM % 2))
	for ((i = 0; i < n; i++)); do
		pick p "${PLENS[@]}"
		subp+=("$p")
	done
	echo "S ip link add d0 type dummy"
	echo "S ip link add d1 type dummy"
	echo "S ip link set d0 up"
	echo "S ip link set d1 up"
	echo "S promote d0 $((RANDOM % 2))"
	echo "S promote d1 $((RANDOM % 2))"
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

gen() {
	local seed=$1 n=$2 k
	RANDOM=$seed
	echo "# seed $seed, $n scenarios"
	for ((k = 1; k <= n; k++)); do
		echo "# scenario $k"
		gen_scenario
	done
}

# --- runner (guest) -------------------------------------------------------
# Each scenario runs in one bash in a netns of its own (unshare -n), two
# scenarios at a time.  Exec is what costs under TCG (~100 ms an `ip`):
# the `ip` commands between two other commands go to one `ip -batch`
# (-force: on after an error; the error text and iproute2's "Command
# failed -:N" say which line failed and how), with the state dumps in it,
# each ended by `link show dev lo` as a separator.

FLUSHER=$(cd "$(dirname "$0")/../.." && pwd)/selftests/ifa_flusher
T=/tmp/check-diff.$$
DUMP=("addr show" "route show table all" "link show dev lo")

# run_batch: the pending entries ($text[i]: a command or "" for a state
# only, $dump[i]: 1 if the state follows it) as one `ip -batch`; prints
# each command, each state (addresses in kernel order, then the routes,
# sorted) and the batch's exit status and error text.
run_batch() {
	local b=() i l rc a r=() st=0
	[ ${#text[@]} -gt 0 ] || return 0
	for i in "${!text[@]}"; do
		[ -z "${text[i]}" ] || b+=("${text[i]}")
		[ "${dump[i]}" = 0 ] || b+=("${DUMP[@]}")
	done
	printf '%s\n' "${b[@]}" | ip -4 -o -force -batch - >"$T.o" 2>"$T.e"
	rc=$?
	mapfile -t a <"$T.o"
	for i in "${!text[@]}"; do
		[ -z "${text[i]}" ] || echo "> ${text[i]}"
		[ "${dump[i]}" = 1 ] || continue
		echo "= state"
		r=()
		while [ "$st" -lt ${#a[@]} ]; do
			l=${a[st]}
			st=$((st + 1))
			[[ $l != "1: lo:"* ]] || break
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

# other CMD...: a command that is not `ip`: "promote DEV 0|1" or
# "flush MODE DEV [ADDR/LEN]"; prints it, its exit status and output.
other() {
	local f rc mode old=
	printf '> %s\n' "$*"
	case $1 in
	promote)
		rc=0
		echo "$3" 2>"$T.e" >"/proc/sys/net/ipv4/conf/$2/promote_secondaries" || rc=1
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
	esac
	echo "rc=$rc"
	mapfile -t old <"$T.e"
	[ ${#old[@]} -eq 0 ] || printf '%s\n' "${old[@]}"
}

# one K LINE...: scenario K, inside its own netns.  The state is dumped
# after the setup and after each request.
# shellcheck disable=SC2086 # "other $cmd": the words of a line of FILE
one() {
	local line cmd dumped=0 text=() dump=()
	echo "### scenario $1"
	shift
	echo 0 >/proc/sys/net/ipv4/conf/all/promote_secondaries
	echo 0 >/proc/sys/net/ipv4/conf/default/promote_secondaries
	for line in "$@"; do
		cmd=${line:2}
		if [ "${line:0:1}" = R ] && [ $dumped = 0 ]; then
			text+=("") dump+=(1)
			dumped=1
		fi
		case $line in
		"S ip "*) text+=("${cmd#ip }") dump+=(0) ;;
		"R ip "*) text+=("${cmd#ip }") dump+=(1) ;;
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
	local file=$1 states=$2 lines=() k=0 line d=/tmp/check-diff.out i running=0
	"$FLUSHER" -c >/dev/null 2>&1
	FLAG_KNOWN=$(($? == 0))
	# bulk delete: "Bulk delete is not supported" on an empty device
	# (ifa_flusher then reports "failed 1")
	BULK_KNOWN=$(unshare -n bash -c "ip link add z0 type dummy &&
		$FLUSHER -m bulk z0 2>&1" | grep -c " failed 0 left 0$")
	export FLAG_KNOWN BULK_KNOWN
	echo "check-diff: $(uname -r), IFA_F_FLUSH known: $FLAG_KNOWN," \
		"bulk delete known: $BULK_KNOWN"
	mkdir -p $d
	start() {
		[ "$k" -gt 0 ] || return 0
		# two at a time (2 vCPUs); each writes its own file
		[ "$running" -lt 2 ] || { wait -n; running=$((running - 1)); }
		running=$((running + 1))
		unshare -n bash "$0" one "$k" "${lines[@]}" >"$d/$k" 2>&1 &
	}
	while IFS= read -r line; do
		case $line in
		"# scenario "*)
			start
			k=${line#"# scenario "}
			lines=()
			[ $((k % 50)) -ne 1 ] || echo "check-diff: scenario $k"
			;;
		"#"*) ;;
		*) lines+=("$line") ;;
		esac
	done <"$file"
	start
	wait
	for ((i = 1; i <= k; i++)); do
		echo "$d/$i"
	done | xargs cat >"$states"
	echo "check-diff: done, $k scenarios, $(grep -c '^= state' "$states") states"
}

case ${1:-} in
gen) gen "$2" "$3" ;;
run) run "$2" "$3" ;;
one)
	shift
	one "$@"
	;;
*)
	echo "usage: $0 gen SEED N | run FILE STATES" >&2
	exit 2
	;;
esac
