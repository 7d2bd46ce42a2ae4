#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Flush benchmark for IFA_F_FLUSH, run inside the VM in one boot:
#
#   make -C selftests && scripts/vm-run.sh scripts/<this script>
#   VM_ENV="BENCH_ONE BENCH_RFC" BENCH_ONE=500 BENCH_RFC=2500 \
#	scripts/vm-run.sh scripts/<this script>		(quick run)
#
# Layouts, all with promote_secondaries=1 on a dummy device:
#   one  N addresses in one subnet (10.0.0.0/16), N in $BENCH_ONE;
#   rfc  /24 subnets of $BENCH_PER addresses each (10.0.0.0/24,
#        10.0.1.0/24, ...), N in $BENCH_RFC.
# For each layout and N, the addresses are added (ifa_flusher -a, timed)
# and flushed again by each method:
#   ip        stock "ip -4 addr flush dev D": iproute2 sends its deletes in
#             dump order, in batches while the dump goes on, and dumps
#             again until nothing is left (promoted addresses move behind
#             the dump position and wait for the next round);
#   dump      ifa_flusher -m dump: dump, then delete in dump order;
#   secfirst  ifa_flusher -m secfirst: secondaries first, then primaries;
#   flag      ifa_flusher -m flag: dump order with IFA_F_FLUSH.
# Each flush is timed with date +%s.%N and, when the ftrace function
# profiler is available, fib_add_ifaddr()/fib_del_ifaddr() calls are
# counted during it.  Prints Markdown tables: seconds, ratios against the
# plain flushes (ifa_flusher -m dump and ip) and call counts.
#
# Environment:
#   BENCH_ONE      sizes of the one-subnet layout ("500 1000 2000")
#   BENCH_RFC      sizes of the /24 layout ("10000 20000 40000")
#   BENCH_PER      addresses per /24 subnet (250)
#   BENCH_IP_MAX   skip the stock ip flush when N is above this (no limit)
#   BENCH_DUMP_MAX skip ifa_flusher -m dump when N is above this (10000;
#                  empty: no limit).  Its cost grows with N times the
#                  list length: under TCG, 180 s at 10000 in /24s, about
#                  12 min at 20000 and 50 min at 40000, twice with
#                  BENCH_PROFILE=separate.
#   BENCH_PROFILE  separate: time without the profiler, then count the
#                  calls in a second add + flush (default); 1: count during
#                  the timed flush (one pass, but the profiler adds ~30% to
#                  the promoting flushes under TCG); 0: no counts
# Pass them into the guest with VM_ENV="BENCH_ONE BENCH_RFC ...".  The
# default run takes roughly half an hour under TCG: use VM_TIMEOUT=3600.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
FLUSHER=${FLUSHER:-$TOP/selftests/ifa_flusher}
BENCH_ONE=${BENCH_ONE-500 1000 2000}
BENCH_RFC=${BENCH_RFC-10000 20000 40000}
BENCH_PER=${BENCH_PER:-250}
BENCH_IP_MAX=${BENCH_IP_MAX:-}
BENCH_DUMP_MAX=${BENCH_DUMP_MAX-10000}
BENCH_PROFILE=${BENCH_PROFILE:-separate}
NS=bench-flush-$$
DEV=bf0
METHODS="ip dump secfirst flag"
TRACEFS=
OLD_FILTER=
OLD_PROFILE=

# Results, indexed by "layout,N,method".
declare -A T_ADD T_FLUSH N_ADD N_DEL OUT

log()
{
	printf '[bench] %s\n' "$*" >&2
}

die()
{
	log "error: $*"
	exit 1
}

now()
{
	date +%s.%N
}

# elapsed T0 T1: seconds between two timestamps, 3 decimals.
elapsed()
{
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'
}

# ratio A B: A / B with 1 decimal, or "-" when not computable.
ratio()
{
	awk -v a="$1" -v b="$2" \
		'BEGIN { if (a == "" || b == "" || b <= 0) print "-";
			 else printf "%.1f", a / b }'
}

# min A B: the smaller of two durations, either may be empty.
min()
{
	awk -v a="$1" -v b="$2" \
		'BEGIN { if (a == "" || (b != "" && b + 0 < a + 0)) print b;
			 else print a }'
}

profile_init()
{
	local d

	[[ $BENCH_PROFILE == 0 ]] && return 1
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[[ -w $d/function_profile_enabled ]] && TRACEFS=$d && break
	done
	[[ -n $TRACEFS ]] || return 1
	OLD_FILTER=$(grep -v '^#' "$TRACEFS/set_ftrace_filter")
	OLD_PROFILE=$(cat "$TRACEFS/function_profile_enabled")
	echo "fib_add_ifaddr fib_del_ifaddr" > "$TRACEFS/set_ftrace_filter" ||
		return 1
}

profile_restore()
{
	[[ -n $TRACEFS ]] || return 0
	echo "$OLD_PROFILE" > "$TRACEFS/function_profile_enabled"
	if [[ -n $OLD_FILTER ]]; then
		echo "$OLD_FILTER" > "$TRACEFS/set_ftrace_filter"
	else
		: > "$TRACEFS/set_ftrace_filter"
	fi
}

# Enabling the profiler clears its counters.
profile_on()
{
	[[ -n $TRACEFS ]] || return 0
	echo 0 > "$TRACEFS/function_profile_enabled"
	echo 1 > "$TRACEFS/function_profile_enabled"
}

profile_off()
{
	[[ -n $TRACEFS ]] || return 0
	echo 0 > "$TRACEFS/function_profile_enabled"
}

# profile_hits FUNC: calls of FUNC summed over the CPUs, "-" if unknown.
profile_hits()
{
	if [[ -z $TRACEFS ]]; then
		echo -
		return
	fi
	awk -v f="$1" '$1 == f { n += $2 } END { print n + 0 }' \
		"$TRACEFS"/trace_stat/function[0-9]*
}

cleanup()
{
	profile_off
	profile_restore
	ip netns del "$NS" 2>/dev/null
}

# add_addrs LAYOUT N
add_addrs()
{
	if [[ $1 == one ]]; then
		ip netns exec "$NS" "$FLUSHER" -a "$2" -p 10.0.0.0/16 "$DEV"
	else
		ip netns exec "$NS" "$FLUSHER" -a "$2" -s "$BENCH_PER" \
			-p 10.0.0.0/24 "$DEV"
	fi
}

count_addrs()
{
	ip -n "$NS" -4 addr show dev "$DEV" | grep -c 'inet '
}

# flush_dev METHOD: flush $DEV, a one-line report on stdout.
flush_dev()
{
	local out rc

	if [[ $1 == ip ]]; then
		# -s: "*** Flush is complete after N rounds ***"
		out=$(ip -n "$NS" -s -4 addr flush dev "$DEV")
		rc=$?
		out=$(grep -i 'flush' <<< "$out" | tail -n 1)
		echo "ip: ${out:-rc $rc}"
		return "$rc"
	else
		ip netns exec "$NS" "$FLUSHER" -m "$1" "$DEV"
	fi
}

# check_left KEY: after a flush, note and remove what it left behind.
check_left()
{
	local left

	left=$(count_addrs)
	((left == 0)) && return
	log "$1: $left addresses left on $DEV"
	OUT[$1]="${OUT[$1]} ($left left!)"
	ip netns exec "$NS" "$FLUSHER" -m secfirst "$DEV" >/dev/null ||
		die "cannot empty $DEV"
}

# run_one LAYOUT N METHOD: add N addresses, flush them, record the results.
run_one()
{
	local layout=$1 n=$2 m=$3 k="$1,$2,$3" t0 t1 out left

	t0=$(now)
	add_addrs "$layout" "$n" >/dev/null || die "adding $n addresses failed"
	t1=$(now)
	T_ADD[$k]=$(elapsed "$t0" "$t1")
	left=$(count_addrs)
	((left == n)) || die "$left addresses on $DEV, expected $n"

	if [[ $BENCH_PROFILE == 1 ]]; then
		profile_on
	fi
	t0=$(now)
	out=$(flush_dev "$m") || log "$m flush failed: $out"
	t1=$(now)
	profile_off
	T_FLUSH[$k]=$(elapsed "$t0" "$t1")
	OUT[$k]=$out
	if [[ $BENCH_PROFILE == 1 ]]; then
		N_ADD[$k]=$(profile_hits fib_add_ifaddr)
		N_DEL[$k]=$(profile_hits fib_del_ifaddr)
	fi
	check_left "$k"

	if [[ $BENCH_PROFILE == separate && -n $TRACEFS ]]; then
		add_addrs "$layout" "$n" >/dev/null ||
			die "adding $n addresses failed"
		profile_on
		flush_dev "$m" >/dev/null
		profile_off
		N_ADD[$k]=$(profile_hits fib_add_ifaddr)
		N_DEL[$k]=$(profile_hits fib_del_ifaddr)
		check_left "$k"
	fi
	log "$layout N=$n $m: add ${T_ADD[$k]}s flush ${T_FLUSH[$k]}s," \
		"fib_add_ifaddr ${N_ADD[$k]:--}," \
		"fib_del_ifaddr ${N_DEL[$k]:--} ($out)"
}

# skip METHOD N: whether BENCH_IP_MAX or BENCH_DUMP_MAX excludes it.
skip()
{
	local max

	case $1 in
	ip) max=$BENCH_IP_MAX ;;
	dump) max=$BENCH_DUMP_MAX ;;
	*) max= ;;
	esac
	[[ -n $max ]] && (($2 > max))
}

print_tables()
{
	local layout n m k add plain ip sec flag sizes

	echo
	echo "Kernel $(uname -r), $(nproc) CPUs; promote_secondaries=1;" \
		"/24 layout: $BENCH_PER addresses per subnet."
	if [[ $BENCH_PROFILE == 1 && -n $TRACEFS ]]; then
		echo "Times include the function profiler's overhead" \
			"(2 functions traced)."
	fi
	echo
	echo "Add: the fastest of the adds before each flush."
	echo
	echo "| layout | N | add s | ip flush s | dump s | secfirst s |" \
		"flag s | dump/secfirst | dump/flag | ip/secfirst | ip/flag |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for layout in one rfc; do
		[[ $layout == one ]] && sizes=$BENCH_ONE || sizes=$BENCH_RFC
		for n in $sizes; do
			k="$layout,$n"
			plain=${T_FLUSH[$k,dump]:-}
			ip=${T_FLUSH[$k,ip]:-}
			sec=${T_FLUSH[$k,secfirst]:-}
			flag=${T_FLUSH[$k,flag]:-}
			add=
			for m in $METHODS; do
				add=$(min "$add" "${T_ADD[$k,$m]:-}")
			done
			printf '| %s | %s | %s ' "$layout" "$n" "${add:--}"
			printf '| %s | %s | %s | %s ' "${ip:--}" "${plain:--}" \
				"${sec:--}" "${flag:--}"
			printf '| %s | %s | %s | %s |\n' \
				"$(ratio "$plain" "$sec")" \
				"$(ratio "$plain" "$flag")" \
				"$(ratio "$ip" "$sec")" "$(ratio "$ip" "$flag")"
		done
	done

	echo
	echo "Calls of fib_add_ifaddr / fib_del_ifaddr during each flush:"
	echo
	echo "| layout | N | ip | dump | secfirst | flag | ip report |" \
		"flag report |"
	echo "|---|---:|---:|---:|---:|---:|---|---|"
	for layout in one rfc; do
		[[ $layout == one ]] && sizes=$BENCH_ONE || sizes=$BENCH_RFC
		for n in $sizes; do
			k="$layout,$n"
			printf '| %s | %s |' "$layout" "$n"
			for m in $METHODS; do
				printf ' %s / %s |' "${N_ADD[$k,$m]:--}" \
					"${N_DEL[$k,$m]:--}"
			done
			printf ' %s | %s |\n' "${OUT[$k,ip]:--}" \
				"${OUT[$k,flag]:--}"
		done
	done
}

[[ $(id -u) == 0 ]] || die "needs root"
[[ -x $FLUSHER ]] || die "no $FLUSHER: run make -C selftests on the host"

trap cleanup EXIT
ip netns add "$NS" || die "cannot create netns $NS"
# A dummy device, or a veth pair where dummy is not available.
if ! ip -n "$NS" link add name "$DEV" type dummy 2>/dev/null; then
	ip -n "$NS" link add name "$DEV" type veth peer name "${DEV}p" ||
		die "cannot create $DEV"
	ip -n "$NS" link set dev "${DEV}p" up
fi
ip netns exec "$NS" sysctl -qw net.ipv6.conf."$DEV".disable_ipv6=1
ip netns exec "$NS" sysctl -qw net.ipv4.conf."$DEV".promote_secondaries=1 ||
	die "cannot set promote_secondaries"
ip -n "$NS" link set dev "$DEV" up || die "cannot set $DEV up"
if ! profile_init; then
	TRACEFS=
	log "no function profiler: no call counts"
fi

for layout in one rfc; do
	[[ $layout == one ]] && sizes=$BENCH_ONE || sizes=$BENCH_RFC
	for n in $sizes; do
		for m in $METHODS; do
			if skip "$m" "$n"; then
				log "$layout N=$n: $m skipped (N > max)"
				continue
			fi
			run_one "$layout" "$n" "$m"
		done
	done
done

print_tables
