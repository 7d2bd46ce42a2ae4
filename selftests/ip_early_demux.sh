#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test net.ipv4.ip_early_demux, tcp_early_demux and udp_early_demux.
#
# Two namespaces joined by a veth (not lo: loopback packets keep their dst,
# so early demux never runs there).  ip_early_demux (the C helper) sends
# packets from one namespace to an established TCP socket or a connected
# UDP socket in the other, IPv4 and IPv6, and counts the FIB lookups made
# for them on the receiving device (fib:fib_table_lookup and
# fib6:fib6_table_lookup tracepoints): none when early demux found the
# socket, one per packet when it did not.
#
# Pinned behaviour (Linux 7.3):
# - ip_early_demux=0 turns off both; tcp/udp_early_demux=0 only their
#   protocol; IPv6 (ip6_rcv_finish_core) obeys the same net.ipv4 knobs.
# - The knobs are per network namespace, 1 in a new namespace.
# - proc_dou8vec_minmax without bounds: any 0..255 is accepted (in any C
#   base) and read back as written, and any non-zero value enables;
#   -1, 256 and non-numbers are rejected with EINVAL, the value unchanged.

# shellcheck disable=SC1091,SC2034,SC2154,SC2317,SC2329
source lib.sh

ALL_TESTS="
	test_defaults
	test_demux_matrix
	test_demux_nonboolean
	test_list_rcv
	test_netns_isolation
	test_sysctl_input
	test_count_methods
"

BIN=$(dirname "$(readlink -f "$0")")/ip_early_demux
: "${COUNT_METHOD:=trace}"
: "${VERBOSE:=0}"

KNOBS="ip_early_demux tcp_early_demux udp_early_demux"
VARIANTS="ipv4_tcp ipv4_udp ipv6_tcp ipv6_udp"
# Index 1 and 2: the two sides.
NS=()
DEV=(- edmx1 edmx2)
ADDR4=(- 198.51.100.1 198.51.100.2)
ADDR6=(- 2001:db8:ed::1 2001:db8:ed::2)

setup()
{
	local idx i

	setup_ns NS1 NS2 || return
	NS=(- "$NS1" "$NS2")

	# The IPv6 lookup filter matches on the receiving ifindex: make it
	# unlikely to exist in any other namespace.
	idx=$(((1 << 30) + (RANDOM << 15) + RANDOM))
	idx=$((idx & ~1))
	ip -n "$NS1" link add name "${DEV[1]}" index "$idx" type veth \
		peer name "${DEV[2]}" netns "$NS2" index $((idx + 1)) || return

	for i in 1 2; do
		# No link-local address: no DAD, no route change mid-test.
		ip -n "${NS[i]}" link set dev "${DEV[i]}" addrgenmode none
		ip -n "${NS[i]}" addr add "${ADDR4[i]}/24" dev "${DEV[i]}"
		ip -n "${NS[i]}" addr add "${ADDR6[i]}/64" dev "${DEV[i]}" \
			nodad
		ip -n "${NS[i]}" link set dev "${DEV[i]}" up
	done
}

# knobs_set SIDE IP TCP UDP (one "ip netns exec": slow under emulation)
knobs_set()
{
	local side=$1; shift

	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "${NS[side]}" bash -c '
		cd /proc/sys/net/ipv4 &&
		echo "$1" > ip_early_demux &&
		echo "$2" > tcp_early_demux &&
		echo "$3" > udp_early_demux' _ "$@"
}

# knobs_get SIDE: "IP TCP UDP"
knobs_get()
{
	local side=$1

	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "${NS[side]}" bash -c '
		cd /proc/sys/net/ipv4 &&
		echo $(cat ip_early_demux tcp_early_demux udp_early_demux)'
}

knobs_reset()
{
	knobs_set 1 1 1 1
	knobs_set 2 1 1 1
}

variant_str()
{
	local v=$1 ip=${1%_*} proto=${1#*_}

	echo "${ip/ipv/IPv}" "${proto^^}"
}

# demux_cases TAG RX EXP_TCP EXP_UDP [OPTIONS]: side RX receives from the
# other side; one log_test line per family and protocol.
demux_cases()
{
	local tag=$1 rx=$2 exp_tcp=$3 exp_udp=$4; shift 4
	local peer=$((3 - rx))
	local out rc v exp res what why

	out=$("$BIN" -n "${NS[rx]}" -p "${NS[peer]}" -i "${DEV[rx]}" \
		-4 "${ADDR4[rx]},${ADDR4[peer]}" \
		-6 "${ADDR6[rx]},${ADDR6[peer]}" \
		-m "$COUNT_METHOD" -T "$exp_tcp" -U "$exp_udp" "$@" 2>&1)
	rc=$?
	if ((rc != 0 && rc != ksft_skip)) || ((VERBOSE)); then
		printf '\t%s\n' "${out//$'\n'/$'\n\t'}"
	fi

	for v in $VARIANTS; do
		RET=0
		exp=$exp_udp
		[[ $v == *tcp ]] && exp=$exp_tcp
		res="^ok [0-9]* demux\.$v\.fib_lookups"
		if ((rc == ksft_skip)) || grep -q "$res # SKIP" <<< "$out"; then
			# The helper's own reason (no tracefs, no GRO, ...).
			why=$(grep -m1 -o '# SKIP .*' <<< "$out")
			why=${why#\# SKIP }
			ret_set_ksft_status "$ksft_skip" \
				"${why:-cannot count FIB lookups}"
		elif ! grep -q "$res$" <<< "$out"; then
			check_err 1 "FIB lookups do not match (rc $rc)"
		fi
		what="$(variant_str "$v") $( ((exp)) || echo "not ")demuxed"
		log_test "$tag: $what"
	done
}

test_defaults()
{
	local side vals

	for side in 1 2; do
		RET=0
		vals=$(knobs_get "$side")
		[[ $vals == "1 1 1" ]]
		check_err $? "read $vals"
		log_test "new netns: ip/tcp/udp_early_demux are 1/1/1 (NS$side)"
	done
}

# Every combination of the three knobs on the receiving side.
test_demux_matrix()
{
	local ip tcp udp

	defer knobs_reset
	for ip in 0 1; do
		for tcp in 0 1; do
			for udp in 0 1; do
				RET=0
				knobs_set 1 "$ip" "$tcp" "$udp"
				check_err $? "cannot set $ip/$tcp/$udp"
				log_test "set ip/tcp/udp knobs $ip/$tcp/$udp"
				demux_cases "$ip/$tcp/$udp" 1 \
					$((ip && tcp)) $((ip && udp))
			done
		done
	done
}

# Any non-zero value enables (the knobs are u8, not bounded to 0..1).
test_demux_nonboolean()
{
	defer knobs_reset

	RET=0
	knobs_set 1 2 2 2
	check_err $? "cannot set 2/2/2"
	log_test "set ip/tcp/udp_early_demux=2/2/2"
	demux_cases "2/2/2" 1 1 1

	RET=0
	knobs_set 1 255 0 255
	check_err $? "cannot set 255/0/255"
	log_test "set ip/tcp/udp_early_demux=255/0/255"
	demux_cases "255/0/255" 1 0 1
}

# The same through ip_list_rcv() / ipv6_list_rcv() (veth NAPI with GRO).
test_list_rcv()
{
	local ip tcp udp combo

	defer knobs_reset
	for combo in "1 1 1" "0 1 1" "1 0 1" "1 1 0"; do
		read -r ip tcp udp <<< "$combo"
		if ! knobs_set 1 "$ip" "$tcp" "$udp"; then
			RET=1 retmsg="cannot set the knobs" \
				log_test "GRO (list rx) $ip/$tcp/$udp"
			continue
		fi
		demux_cases "GRO (list rx) $ip/$tcp/$udp" 1 \
			$((ip && tcp)) $((ip && udp)) -g
	done
}

# A different knob at 0 in each namespace, every knob once in each: each
# namespace reads back and behaves by its own values only, and init_net
# (never written by this test) is unchanged.
test_netns_isolation()
{
	local init_before init_after combo side vals want tag v
	local -a ip tcp udp

	defer knobs_reset
	init_before=$(cat /proc/sys/net/ipv4/{ip,tcp,udp}_early_demux)

	for combo in "0 1 1 1 0 1" "1 0 1 1 1 0" "1 1 0 0 1 1"; do
		read -r -a v <<< "$combo"
		ip=(- "${v[0]}" "${v[3]}")
		tcp=(- "${v[1]}" "${v[4]}")
		udp=(- "${v[2]}" "${v[5]}")
		tag="NS1 ${v[0]}/${v[1]}/${v[2]}, NS2 ${v[3]}/${v[4]}/${v[5]}"

		RET=0
		for side in 1 2; do
			knobs_set "$side" "${ip[side]}" "${tcp[side]}" \
				"${udp[side]}"
			check_err $? "cannot set NS$side"
		done
		for side in 1 2; do
			want="${ip[side]} ${tcp[side]} ${udp[side]}"
			vals=$(knobs_get "$side")
			[[ $vals == "$want" ]]
			check_err $? "NS$side reads $vals, not $want"
		done
		log_test "$tag: read back"
		for side in 1 2; do
			demux_cases "$tag: NS$side" "$side" \
				$((ip[side] && tcp[side])) \
				$((ip[side] && udp[side]))
		done
	done

	RET=0
	init_after=$(cat /proc/sys/net/ipv4/{ip,tcp,udp}_early_demux)
	[[ $init_before == "$init_after" ]]
	check_err $? "init_net: $init_before before, $init_after after"
	log_test "init_net values untouched"
}

# Pinned from proc_dou8vec_minmax(): "input expected-read-back", where
# expected "-" means rejected (EINVAL) and the old value (1) is kept.
SYSCTL_INPUTS=(
	"0 0"
	"1 1"
	"2 2"
	"255 255"
	"010 8"
	"0x0 0"
	"256 -"
	"-1 -"
	"abc -"
	"4abc -"
	"1.5 -"
	" -"
)

# sysctl_try SIDE KNOB INPUT...: for each INPUT, reset KNOB to 1, write
# INPUT and print "<write status> <value read back>", one line each (one
# "ip netns exec" for all: it is slow under emulation).
sysctl_try()
{
	local side=$1; shift

	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "${NS[side]}" bash -c '
		f=/proc/sys/net/ipv4/$1; shift
		for v in "$@"; do
			echo 1 > "$f" || exit
			printf "%s\n" "$v" > "$f" 2>/dev/null
			echo "$? $(cat "$f")"
		done' _ "$@"
}

test_sysctl_input()
{
	local knob entry i in exp rc val
	local -a inputs expected results

	for entry in "${SYSCTL_INPUTS[@]}"; do
		inputs+=("${entry% *}")
		expected+=("${entry##* }")
	done

	defer knobs_reset
	for knob in $KNOBS; do
		RET=0
		mapfile -t results < <(sysctl_try 1 "$knob" "${inputs[@]}")
		for i in "${!inputs[@]}"; do
			in=${inputs[i]}
			exp=${expected[i]}
			read -r rc val <<< "${results[i]}"
			if [[ $exp == - ]]; then
				check_fail "$rc" "write '$in' accepted"
				exp=1
			else
				check_err "$rc" "write '$in' rejected"
			fi
			[[ $val == "$exp" ]]
			check_err $? "write '$in': read '$val', not '$exp'"
			# Sane whatever happened: one integer in 0..255.
			[[ $val =~ ^[0-9]+$ ]] && ((val <= 255))
			check_err $? "write '$in': read '$val'"
		done
		log_test "$knob: 0..255 accepted, -1/256/text rejected"
	done
}

# The perf counter gives the same answers as the tracefs instance.
test_count_methods()
{
	local COUNT_METHOD=perf

	if [[ ! -e /proc/sys/kernel/perf_event_paranoid ]]; then
		log_test_skip "perf counter" "no CONFIG_PERF_EVENTS"
		return
	fi
	defer knobs_reset
	demux_cases "perf counter, 1/1/1" 1 1 1
	if ! knobs_set 1 0 1 1; then
		RET=1 retmsg="cannot set the knobs" \
			log_test "perf counter, 0/1/1"
		return
	fi
	demux_cases "perf counter, 0/1/1" 1 0 0
}

if [[ $(id -u) -ne 0 ]]; then
	echo "SKIP: need root"
	exit "$ksft_skip"
fi
require_command ip
if [[ ! -x $BIN ]]; then
	echo "SKIP: $BIN not built"
	exit "$ksft_skip"
fi
if [[ ! -d /sys/kernel/tracing/events/fib/fib_table_lookup &&
      ! -d /sys/kernel/debug/tracing/events/fib/fib_table_lookup ]]; then
	echo "SKIP: no tracefs with the fib:fib_table_lookup event"
	exit "$ksft_skip"
fi

trap 'defer_scopes_cleanup; cleanup_all_ns' EXIT
if ! setup; then
	echo "FAIL: cannot set up the namespaces and the veth pair"
	exit "$ksft_fail"
fi
tests_run
exit "$EXIT_STATUS"
