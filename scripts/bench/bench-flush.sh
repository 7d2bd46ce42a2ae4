#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Flush benchmark for IFA_F_FLUSH, run inside the VM in one boot:
#
#   scripts/bench/<this script> --build		(on the host: the helper)
#   scripts/vm/vm-exec.sh scripts/bench/<this script>
#   VM_ENV="BENCH_ONE BENCH_RFC" BENCH_ONE=500 BENCH_RFC=2500 \
#	scripts/vm/vm-exec.sh scripts/bench/<this script>		(quick run)
#
# Layouts on a dummy device:
#   one   N addresses in one subnet (10.0.0.0/8), N in $BENCH_ONE;
#   rfc   /24 subnets of $BENCH_PER addresses each (10.0.0.0/24,
#         10.0.1.0/24, ...), N in $BENCH_RFC (the 2016 RFC's layout);
#   host  N /32 addresses, each its own primary (anycast and VIP hosts),
#         N in $BENCH_HOST;
#   filt  /24 subnets of $BENCH_PER addresses, half of them in 10.0.0.0/9
#         with the label $DEV:a, the other half in 10.128.0.0/9 without,
#         N in $BENCH_FILT: a flush with a selector that picks half of
#         the subnets;
#   host6 N IPv6 /128s (2001:db8::/96), N in $BENCH_HOST6;
#   one6  N IPv6 addresses in one /64 (2001:db8:1::/64), sharing its
#         prefix route, N in $BENCH_ONE6.
# The IPv6 layouts are on a dummy device of their own, $DEV6, without a
# link-local address (addr_gen_mode none): a dummy device does no DAD
# and joins no solicited-node group (IFF_NOARP), as kube-ipvs0.  Their
# addresses are added by flush6_bench -a (scripts/bench/flush6_bench.c,
# timed), which also waits for the part of each add that the kernel does
# after its ack (the work item that ends the address's tentative state
# and inserts its local route), so that no flush pays for it; and
# flushed by
#   ip6       stock "ip -6 addr flush dev D": one RTM_DELADDR per address,
#             in dump order;
#   bulk6     flush6_bench -m bulk: one RTM_DELADDR with NLM_F_BULK for
#             AF_INET6, where the kernel takes it (IPv6 bulk delete is in
#             progress: branch wip/ipv6-bulk, issue 32; other kernels
#             answer EOPNOTSUPP, and the table shows what was left);
#   ipnew6    "ip -6 addr flush dev D" with BENCH_IP_PATCHED: an ip that
#             sends that bulk request where the kernel takes it.
# For each layout and N, the addresses are added (flush_bench -a, timed)
# and flushed again by each method, promote_secondaries=1 unless said:
#   ip        stock "ip -4 addr flush dev D": iproute2 sends its deletes in
#             dump order, in batches while the dump goes on, and dumps
#             again until nothing is left (promoted addresses move behind
#             the dump position and wait for the next round);
#   secfirst  flush_bench -m secfirst: secondaries first, then primaries
#             (what userspace can do without a kernel change);
#   plain     flush_bench -m dump with promote_secondaries=0: dump order,
#             a primary takes its secondaries along (the kernel default);
#   flag      flush_bench -m flag: dump order with IFA_F_FLUSH, every
#             address (the later ones are gone: EADDRNOTAVAIL);
#   flagprim  flush_bench -m flagprim: the primaries only, with the flag;
#   bulk      flush_bench -m bulk: one RTM_DELADDR with NLM_F_BULK;
#   ipnew     "ip -4 addr flush dev D" with the iproute2 companion patch
#             (patches/iproute2/), when BENCH_IP_PATCHED names that ip
#             binary (built by the user beside this repository).
# The filt layout has methods of its own, each deleting half of it:
#   ipto, iplabel        stock "ip -4 addr flush dev D to 10.0.0.0/9",
#                        "... label D:a";
#   ipnewto, ipnewlabel  the same with BENCH_IP_PATCHED (which deletes a
#                        primary with IFA_F_FLUSH where the selector
#                        picks its whole subnet).
# Each flush by flush_bench or flush6_bench is timed by the helper itself
# (its "secs": from its first dump to its last ack), the ip flushes with
# bash's clock around the command.  Prints a Markdown table: seconds and
# ratios.
#
# Adds (series 5), for the layouts host, rfc and one, N in $BENCH_ADD_N
# (run only when set):
#   socket    the adds before each flush above (flush_bench -a: one
#             netlink socket, batches of acked requests; the fastest of
#             them), so N must also be among the layout's sizes;
#   ip -batch stock "ip -batch FILE", FILE the same addresses as
#             "address add A/LEN dev D" lines, written to /tmp untimed:
#             one request per line, each acked before the next; timed
#             with bash's clock as the ip flushes; not above
#             $BENCH_ADD_BATCH; the device is emptied again untimed.
# And the cost of one address on a small device, n in $BENCH_SMALL (run
# only when set; n < 250): the device first gets n addresses
# (flush_bench -a), host: n /32s 10.0.0.1..., one: n in 10.0.0.0/8; then
# churn_bench (scripts/bench/churn_bench.c) adds and deletes one more,
# host: 10.1.0.1/32, one: 10.0.0.250/8 (a secondary), $BENCH_SMALL_REPS
# times, one request at a time, each acked before the next, and times
# it itself (first request to last ack).  Each prints a Markdown table of
# its own ("Adds", "Small N").
#
# Environment (the knobs and their defaults: make help): BENCH_ONE,
# BENCH_RFC, BENCH_HOST, BENCH_FILT, BENCH_HOST6, BENCH_ONE6 (the sizes of
# each layout; the IPv6 ones run only when set), BENCH_IP6_MAX (above it
# stock "ip -6" is not run), BENCH_PER,
# BENCH_METHODS, BENCH_IP_PATCHED, BENCH_IP_MAX, BENCH_IP_RFC_MAX (/24s,
# default BENCH_IP_MAX) and BENCH_IP_ONE_MAX (above them stock ip is not
# run: its promotions make it slow), BENCH_IP_FILT_MAX,
# BENCH_HOST_ALL_MAX (above it, in the /32 layout, flagprim stands for
# secfirst, plain and flag: every address is a primary without
# secondaries, so all four send the same N deletes, as their times at and
# below it show), BENCH_ADD_N (the adds' sizes; none by default),
# BENCH_ADD_BATCH (above it ip -batch does not add; empty: every N),
# BENCH_SMALL (the small devices' sizes; none by default),
# BENCH_SMALL_REPS (adds and deletes per small device).
# scripts/bench/bench.sh passes them into the guest.
#
# Not -e: a flush that fails or leaves addresses is reported in the table
# and the run goes on.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
# The flushers (scripts/bench/flush_bench.c, flush6_bench.c), built on
# the host, static: they are copied into the guest's tmpfs below, as under
# instruction counting a page of the program or of libc read over 9p
# while it runs is a jump of the guest clock, of seconds on a busy host.
FLUSHER=$(build_helper "$TOP/scripts/bench/flush_bench.c" -static) || exit
FLUSHER6=$(build_helper "$TOP/scripts/bench/flush6_bench.c" -static) || exit
CHURNER=$(build_helper "$TOP/scripts/bench/churn_bench.c" -static) || exit
[[ ${1:-} != --build ]] || exit 0
BENCH_ONE=${BENCH_ONE-10000 20000 40000}
BENCH_RFC=${BENCH_RFC-10000 20000 40000}
BENCH_HOST=${BENCH_HOST-10000 20000 40000}
BENCH_FILT=${BENCH_FILT-10000 20000 40000}
BENCH_IP_FILT_MAX=${BENCH_IP_FILT_MAX-40000}
BENCH_PER=${BENCH_PER:-250}
BENCH_IP_MAX=${BENCH_IP_MAX-40000}
BENCH_IP_RFC_MAX=${BENCH_IP_RFC_MAX-$BENCH_IP_MAX}
BENCH_IP_ONE_MAX=${BENCH_IP_ONE_MAX-2000}
BENCH_HOST_ALL_MAX=${BENCH_HOST_ALL_MAX-40000}
NS=${BENCH_NS:-bench-flush-$$}
DEV=bf0
BENCH_IP_PATCHED=${BENCH_IP_PATCHED:-}
METHODS=${BENCH_METHODS:-ip secfirst plain flag flagprim bulk${BENCH_IP_PATCHED:+ ipnew}}
FILT_METHODS="ipto iplabel${BENCH_IP_PATCHED:+ ipnewto ipnewlabel}"
BENCH_HOST6=${BENCH_HOST6-}
BENCH_ONE6=${BENCH_ONE6-}
BENCH_IP6_MAX=${BENCH_IP6_MAX-}
DEV6=bf6
BENCH_ADD_N=${BENCH_ADD_N-}
BENCH_ADD_BATCH=${BENCH_ADD_BATCH-}
BENCH_SMALL=${BENCH_SMALL-}
BENCH_SMALL_REPS=${BENCH_SMALL_REPS:-2000}
METHODS6="ip6 bulk6${BENCH_IP_PATCHED:+ ipnew6}"
LAYOUTS="one rfc host filt host6 one6"

# Results, indexed by "layout,N,method"; the ip -batch adds and the small
# devices' by "layout,N" (failures in FAILED).
declare -A T_ADD T_FLUSH T_REQ OUT T_BATCH T_SMALL FAILED=()

# bash's own clock: no program to load (see the staging below).
now()
{
	echo "$EPOCHREALTIME"
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

# ratio2 A B: A / B with 2 decimals, or "-".
ratio2()
{
	awk -v a="$1" -v b="$2" \
		'BEGIN { if (a == "" || b == "" || b <= 0) print "-";
			 else printf "%.2f", a / b }'
}

# min A B: the smaller of two durations, either may be empty.
min()
{
	awk -v a="$1" -v b="$2" \
		'BEGIN { if (a == "" || (b != "" && b + 0 < a + 0)) print b;
			 else print a }'
}

cleanup()
{
	ip netns del "$NS" 2>/dev/null
}

# sizes LAYOUT
sizes()
{
	case $1 in
	one) echo "$BENCH_ONE" ;;
	rfc) echo "$BENCH_RFC" ;;
	host) echo "$BENCH_HOST" ;;
	filt) echo "$BENCH_FILT" ;;
	host6) echo "$BENCH_HOST6" ;;
	one6) echo "$BENCH_ONE6" ;;
	esac
}

# methods LAYOUT
methods()
{
	if [[ $1 == filt ]]; then
		echo "$FILT_METHODS"
	elif [[ $1 == *6 ]]; then
		echo "$METHODS6"
	else
		echo "$METHODS"
	fi
}

# add_addrs LAYOUT N
add_addrs()
{
	case $1 in
	host6)
		"$FLUSHER6" -a "$2" -s 1 -p 2001:db8::/128 "$DEV6" ;;
	one6)
		"$FLUSHER6" -a "$2" -p 2001:db8:1::/64 "$DEV6" ;;
	one)
		"$FLUSHER" -a "$2" -p 10.0.0.0/8 "$DEV" ;;
	rfc)
		"$FLUSHER" -a "$2" -s "$BENCH_PER" \
			-p 10.0.0.0/24 "$DEV" ;;
	host)
		"$FLUSHER" -a "$2" -s 1 \
			-p 10.0.0.0/32 "$DEV" ;;
	filt)
		"$FLUSHER" -a "$(($2 / 2))" \
			-s "$BENCH_PER" -p 10.0.0.0/24 -l "$DEV:a" "$DEV" &&
		"$FLUSHER" -a "$(($2 - $2 / 2))" \
			-s "$BENCH_PER" -p 10.128.0.0/24 "$DEV" ;;
	esac
}

# promote 0|1
promote()
{
	sysctl -qw \
		"net.ipv4.conf.all.promote_secondaries=$1" \
		"net.ipv4.conf.$DEV.promote_secondaries=$1" ||
		die "cannot set promote_secondaries"
}

# count_addrs [LAYOUT]: the addresses of the layout's device and family.
count_addrs()
{
	if [[ ${1:-} == *6 ]]; then
		ip -6 addr show dev "$DEV6" | grep -c 'inet6 '
	else
		ip -4 addr show dev "$DEV" | grep -c 'inet '
	fi
}

# flush_dev METHOD: flush $DEV, a one-line report on stdout.
flush_dev()
{
	local out rc

	if [[ $1 == ip* ]]; then
		local ip=("${IP_STOCK[@]}") sel=() t0 t1

		local fam=-4 dev=$DEV

		[[ $1 == ipnew* ]] && ip=("${IP_PATCHED[@]}")
		[[ $1 == *to ]] && sel=(to 10.0.0.0/9)
		[[ $1 == *label ]] && sel=(label "$DEV:a")
		[[ $1 == *6 ]] && fam=-6 dev=$DEV6
		# -s: "*** Flush is complete after N rounds ***"; timed
		# here, around ip alone.
		t0=$(now)
		out=$("${ip[@]}" -s "$fam" addr flush dev "$dev" "${sel[@]}")
		rc=$?
		t1=$(now)
		out=$(grep -i 'flush' <<< "$out" | tail -n 1)
		echo "$1: ${out:-rc $rc} secs $(elapsed "$t0" "$t1")"
		return "$rc"
	elif [[ $1 == bulk6 ]]; then
		"$FLUSHER6" -m bulk "$DEV6"
	elif [[ $1 == plain ]]; then
		"$FLUSHER" -m dump "$DEV"
	else
		"$FLUSHER" -m "$1" "$DEV"
	fi
}

# check_left KEY [N]: after a flush, note and remove what it left behind;
# in the filt layout, the half in 10.128.0.0/9 (N - N / 2) stays and is
# then removed untimed.
check_left()
{
	local left keep=0 kept=0

	left=$(count_addrs "$1")
	if [[ $1 == *6,* ]]; then
		((left == 0)) && return
		log "$1: $left addresses left on $DEV6"
		OUT[$1]="${OUT[$1]} ($left left!)"
		"$FLUSHER6" -m dump "$DEV6" >/dev/null ||
			die "cannot empty $DEV6"
		return
	fi
	if [[ $1 == filt,* ]]; then
		keep=$(($2 - $2 / 2))
		kept=$(ip -4 addr show dev "$DEV" to 10.128.0.0/9 |
			grep -c 'inet ')
		if ((left == keep && kept == keep)); then
			"$FLUSHER" -m bulk "$DEV" \
				>/dev/null 2>&1 && return
			"$FLUSHER" -m secfirst "$DEV" \
				>/dev/null || die "cannot empty $DEV"
			return
		fi
		log "$1: $kept of $keep unselected addresses kept"
		OUT[$1]="${OUT[$1]} ($kept of $keep unselected kept, $left left!)"
		left=1
	fi
	((left == 0)) && return
	log "$1: $left addresses left on $DEV"
	OUT[$1]="${OUT[$1]} ($left left!)"
	"$FLUSHER" -m secfirst "$DEV" >/dev/null ||
		die "cannot empty $DEV"
}

# run_one LAYOUT N METHOD: add N addresses, flush them, record the results.
run_one()
{
	local layout=$1 n=$2 m=$3 k="$1,$2,$3" t0 t1 out left

	if [[ $m == plain ]]; then
		promote 0
	else
		promote 1
	fi
	t0=$(now)
	add_addrs "$layout" "$n" >/dev/null || die "adding $n addresses failed"
	t1=$(now)
	T_ADD[$k]=$(elapsed "$t0" "$t1")
	left=$(count_addrs "$layout")
	((left == n)) || die "$left addresses on $DEV, expected $n"

	t0=$(now)
	out=$(flush_dev "$m") || log "$m flush failed: $out"
	t1=$(now)
	T_FLUSH[$k]=$(elapsed "$t0" "$t1")
	[[ $out == *" secs "* ]] && T_FLUSH[$k]=$(printf '%.3f' "${out##* secs }")
	[[ $out == *" req "* ]] && T_REQ[$k]=$(awk '{ for (i = 1; i < NF; i++) if ($i == "req") printf "%.3f", $(i + 1) }' <<<"$out")
	OUT[$k]=$out
	check_left "$k" "$n"
	log "$layout N=$n $m: add ${T_ADD[$k]}s flush ${T_FLUSH[$k]}s ($out)"
}

# skip LAYOUT METHOD N: whether BENCH_IP_MAX, BENCH_IP_RFC_MAX,
# BENCH_IP_ONE_MAX or BENCH_HOST_ALL_MAX excludes it, or the kernel: the
# base (BENCH_BOOT, from scripts/bench/bench.sh) has no IFA_F_FLUSH and
# would take flag and flagprim for plain deletes that promote.
skip()
{
	local max=

	if [[ ${BENCH_BOOT:-} == base && $2 == flag* ]]; then
		return 0
	elif [[ $2 == ipto || $2 == iplabel ]]; then
		max=$BENCH_IP_FILT_MAX
	elif [[ $2 == ip6 ]]; then
		max=$BENCH_IP6_MAX
	elif [[ $2 == ip ]]; then
		case $1 in
		one) max=$BENCH_IP_ONE_MAX ;;
		rfc) max=$BENCH_IP_RFC_MAX ;;
		*) max=$BENCH_IP_MAX ;;
		esac
	elif [[ $1 == host && $2 =~ ^(secfirst|plain|flag)$ ]]; then
		max=$BENCH_HOST_ALL_MAX
	fi
	[[ -n $max ]] && (($3 > max))
}

# empty_dev: remove every IPv4 address of $DEV, untimed: one bulk
# request where the kernel takes it, else secondaries first (as
# check_left).
empty_dev()
{
	"$FLUSHER" -m bulk "$DEV" >/dev/null 2>&1 && return
	"$FLUSHER" -m secfirst "$DEV" >/dev/null || die "cannot empty $DEV"
}

# batch_file LAYOUT N: the addresses flush_bench -a adds for LAYOUT
# (add_addrs: hosts 1, 2, ... of the consecutive subnets from
# 10.0.0.0), as ip -batch lines.
batch_file()
{
	local len per

	case $1 in
	one) len=8 per=$2 ;;
	rfc) len=24 per=$BENCH_PER ;;
	host) len=32 per=1 ;;
	esac
	awk -v n="$2" -v len="$len" -v per="$per" -v dev="$DEV" 'BEGIN {
		for (i = 0; i < n; i++) {
			a = 167772160 + int(i / per) * 2 ^ (32 - len) + i % per + 1
			printf "address add %d.%d.%d.%d/%d dev %s\n",
				int(a / 16777216), int(a / 65536) % 256,
				int(a / 256) % 256, a % 256, len, dev
		}
	}'
}

# add_batch LAYOUT N: the layout's N addresses added by stock ip -batch
# from a file in /tmp (tmpfs, written untimed), timed; the device is
# emptied again, untimed.
add_batch()
{
	local layout=$1 n=$2 k="$1,$2" file=/tmp/add.batch t0 t1 out rc left

	batch_file "$layout" "$n" >"$file" || die "cannot write $file"
	t0=$(now)
	out=$("${IP_STOCK[@]}" -batch "$file" 2>&1)
	rc=$?
	t1=$(now)
	rm -f "$file"
	left=$(count_addrs "$layout")
	if ((rc == 0 && left == n)); then
		T_BATCH[$k]=$(elapsed "$t0" "$t1")
	else
		FAILED[$k,batch]="ip -batch: rc $rc, $left of $n added: ${out:0:200}"
		log "$layout N=$n: ${FAILED[$k,batch]}"
	fi
	empty_dev
	log "$layout N=$n ip -batch: add ${T_BATCH[$k]:--}s"
}

# small LAYOUT n: on a device that holds n addresses of the layout (host:
# /32s, one: one /8), one more added and deleted $BENCH_SMALL_REPS times by
# churn_bench; the device is emptied again, untimed.
small()
{
	local layout=$1 n=$2 k="$1,$2" addr out left

	case $layout in
	host) addr=10.1.0.1/32 ;;
	one) addr=10.0.0.250/8 ;;
	esac
	((n < 250)) || die "BENCH_SMALL: $n, not below 250"
	add_addrs "$layout" "$n" >/dev/null || die "adding $n addresses failed"
	left=$(count_addrs "$layout")
	((left == n)) || die "$left addresses on $DEV, expected $n"
	if out=$("$CHURNER" -c "$BENCH_SMALL_REPS" -p "$addr" "$DEV" 2>&1) &&
		[[ $out == *" secs "* ]]; then
		T_SMALL[$k]=$(printf '%.6f' "${out##* secs }")
	else
		FAILED[$k,small]="churn_bench: ${out//$'\n'/; }"
		log "$layout n=$n: ${FAILED[$k,small]}"
	fi
	left=$(count_addrs "$layout")
	((left == n)) || {
		FAILED[$k,small]+=" ($left addresses after it, not $n!)"
		log "$layout n=$n: $left addresses after churn_bench, not $n"
	}
	empty_dev
	log "$layout n=$n $addr: $BENCH_SMALL_REPS adds and deletes ${T_SMALL[$k]:--}s"
}

# The adds of series 5: one netlink socket against stock ip -batch.
print_add_table()
{
	local layout n k m add b

	[[ -n $BENCH_ADD_N ]] || return 0
	echo
	echo "Adds, seconds to add N addresses to an empty device; socket:" \
		"flush_bench -a (one netlink socket, batches of acked requests," \
		"the fastest of the adds before the flushes above); ip -batch:" \
		"stock ip from a file of \"address add\" lines, one request" \
		"acked at a time; host: /32s, rfc: /24s of $BENCH_PER, one:" \
		"10.0.0.0/8:"
	echo
	echo "| add layout | N | socket | ip -batch | ip -batch/socket |"
	echo "|---|---:|---:|---:|---:|"
	for layout in host rfc one; do
		for n in $BENCH_ADD_N; do
			k="$layout,$n"
			add=
			for m in $METHODS; do
				add=$(min "$add" "${T_ADD[$k,$m]:-}")
			done
			b=${T_BATCH[$k]:-}
			printf '| %s | %s | %s | %s | %s |\n' "$layout" "$n" \
				"${add:--}" "${b:--}" "$(ratio2 "$b" "$add")"
		done
	done
}

# One address added and deleted on small devices.
print_small_table()
{
	local layout n k s addr

	[[ -n $BENCH_SMALL ]] || return 0
	echo
	echo "Small N, seconds for $BENCH_SMALL_REPS adds and deletes of one" \
		"address (churn_bench: one request at a time, each acked" \
		"before the next) on a device that holds n addresses; host:" \
		"n /32s, one: n in 10.0.0.0/8 (the address a secondary):"
	echo
	echo "| small n | layout | address | secs | us per add+delete |"
	echo "|---:|---|---|---:|---:|"
	for n in $BENCH_SMALL; do
		for layout in host one; do
			k="$layout,$n"
			s=${T_SMALL[$k]:-}
			addr=10.1.0.1/32
			[[ $layout == one ]] && addr=10.0.0.250/8
			printf '| %s | %s | %s | %s | %s |\n' "$n" "$layout" \
				"$addr" "${s:--}" "$(awk -v s="$s" \
				-v r="$BENCH_SMALL_REPS" 'BEGIN { if (s == "")
				print "-"; else printf "%.1f", s * 1e6 / r }')"
		done
	done
}

print_tables()
{
	local layout n m k add sec flag fp ip plain ipn bulk req

	echo
	echo "Kernel $(uname -r), $(nproc) CPUs; /24 layout: $BENCH_PER" \
		"addresses per subnet; one boot, every figure from this run."
	echo
	echo "Seconds; add: the fastest of the adds before each flush;" \
		"bulk req: the bulk request alone (the rest of bulk is" \
		"flush_bench's dump before it); \"-\": not run (see the" \
		"script's header)."
	echo
	echo "| layout | N | add | ip | secfirst | plain | flag |" \
		"flagprim | bulk | bulk req | ipnew | secfirst/flagprim | ip/flagprim |" \
		"secfirst/flag | plain/flagprim | ip/ipnew | ip/bulk |" \
		"flagprim/bulk |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for layout in one rfc host; do
		for n in $(sizes "$layout"); do
			k="$layout,$n"
			ip=${T_FLUSH[$k,ip]:-}
			sec=${T_FLUSH[$k,secfirst]:-}
			plain=${T_FLUSH[$k,plain]:-}
			flag=${T_FLUSH[$k,flag]:-}
			fp=${T_FLUSH[$k,flagprim]:-}
			ipn=${T_FLUSH[$k,ipnew]:-}
			bulk=${T_FLUSH[$k,bulk]:-}
			req=${T_REQ[$k,bulk]:-}
			add=
			for m in $METHODS; do
				add=$(min "$add" "${T_ADD[$k,$m]:-}")
			done
			printf '| %s | %s | %s ' "$layout" "$n" "${add:--}"
			printf '| %s | %s | %s | %s | %s | %s | %s | %s ' "${ip:--}" \
				"${sec:--}" "${plain:--}" "${flag:--}" "${fp:--}" \
				"${bulk:--}" "${req:--}" "${ipn:--}"
			printf '| %s | %s | %s | %s | %s | %s | %s |\n' \
				"$(ratio "$sec" "$fp")" "$(ratio "$ip" "$fp")" \
				"$(ratio "$sec" "$flag")" "$(ratio "$plain" "$fp")" \
				"$(ratio "$ip" "$ipn")" "$(ratio "$ip" "$bulk")" \
				"$(ratio "$fp" "$bulk")"
		done
	done

	print_filt_table
	print_v6_table
	print_add_table
	print_small_table
	if ((${#FAILED[@]})); then
		echo
		echo "Failed (\"-\" above):"
		echo
		for k in "${!FAILED[@]}"; do
			echo "- ${k//,/ }: ${FAILED[$k]}"
		done | sort
	fi

	echo
	echo "Reports of the ip flushes (rounds):"
	echo
	for layout in $LAYOUTS; do
		for n in $(sizes "$layout"); do
			for m in ip ipnew $FILT_METHODS ip6 ipnew6; do
				k="$layout,$n,$m"
				[[ -z ${OUT[$k]:-} ]] ||
					echo "- $layout $n $m: ${OUT[$k]}"
			done
		done
	done
}

# The filt layout: flushes of half of its subnets, by selector.
print_filt_table()
{
	local n k add m a b c d

	[[ -n $BENCH_FILT ]] || return 0
	echo
	echo "Filtered flushes (filt layout: N in /24s of $BENCH_PER, half" \
		"of them selected), seconds:"
	echo
	echo "| N | add | ip to | ipnew to | ip/ipnew to |" \
		"ip label | ipnew label | ip/ipnew label |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
	for n in $BENCH_FILT; do
		k="filt,$n"
		add=
		for m in $FILT_METHODS; do
			add=$(min "$add" "${T_ADD[$k,$m]:-}")
		done
		a=${T_FLUSH[$k,ipto]:-} b=${T_FLUSH[$k,ipnewto]:-}
		c=${T_FLUSH[$k,iplabel]:-} d=${T_FLUSH[$k,ipnewlabel]:-}
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" \
			"${add:--}" "${a:--}" "${b:--}" "$(ratio "$a" "$b")" \
			"${c:--}" "${d:--}" "$(ratio "$c" "$d")"
	done
}

# The IPv6 layouts: stock ip against the bulk request (flush6_bench's,
# and the patched ip's), and how each grows from one N to the next.
print_v6_table()
{
	local layout n k add m a b c req prev pa pb pc

	[[ -n $BENCH_HOST6$BENCH_ONE6 ]] || return 0
	echo
	echo "IPv6 flushes (host6: N /128s; one6: N in one /64), seconds;" \
		"bulk6 req: the bulk request alone:"
	echo
	echo "| layout | N | add | ip6 | bulk6 | bulk6 req | ipnew6 |" \
		"ip6/bulk6 | ip6/ipnew6 | ip6 growth | bulk6 growth |" \
		"ipnew6 growth |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for layout in host6 one6; do
		prev=
		for n in $(sizes "$layout"); do
			k="$layout,$n"
			add=
			for m in $METHODS6; do
				add=$(min "$add" "${T_ADD[$k,$m]:-}")
			done
			a=${T_FLUSH[$k,ip6]:-} b=${T_FLUSH[$k,bulk6]:-}
			c=${T_FLUSH[$k,ipnew6]:-} req=${T_REQ[$k,bulk6]:-}
			pa='' pb='' pc=''
			if [[ -n $prev ]]; then
				pa=${T_FLUSH[$layout,$prev,ip6]:-}
				pb=${T_FLUSH[$layout,$prev,bulk6]:-}
				pc=${T_FLUSH[$layout,$prev,ipnew6]:-}
			fi
			printf '| %s | %s | %s | %s | %s | %s | %s ' \
				"$layout" "$n" "${add:--}" "${a:--}" "${b:--}" \
				"${req:--}" "${c:--}"
			printf '| %s | %s | %s | %s | %s |\n' \
				"$(ratio "$a" "$b")" "$(ratio "$a" "$c")" \
				"$(ratio2 "$a" "$pa")" "$(ratio2 "$b" "$pb")" \
				"$(ratio2 "$c" "$pc")"
			prev=$n
		done
	done
	echo
	echo "(growth: the time at this N over the time at the N before.)"
}

# stage BIN NAME: BIN and the shared libraries it loads copied into
# /tmp/NAME (tmpfs); prints the command that runs that copy: the copied
# loader with the copied libraries, nothing left to read from the 9p root
# but the files ip itself opens.
stage()
{
	local dir=/tmp/$2 lib loader=

	mkdir -p "$dir" && cp "$1" "$dir/ip" || return 1
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		cp -L "$lib" "$dir/" || return 1
		[[ $lib == */ld-linux* ]] && loader=$dir/${lib##*/}
	done
	[[ -n $loader ]] || return 1
	printf '%s\n' "$loader" --library-path "$dir" "$dir/ip"
}

[[ $(id -u) == 0 ]] || die "needs root"
# Under instruction counting the guest clock runs on while the guest waits
# for the host, so a program, a library or a page read over the 9p root
# inside a timed part adds seconds, more the busier the host is.  Nothing
# timed reads it: the whole benchmark runs inside its namespace (no "ip
# netns exec" per command), the clock is bash's, the flusher is static in
# tmpfs and each ip runs from a copy in tmpfs with its libraries.
if [[ -z ${BENCH_NS:-} ]]; then
	trap cleanup EXIT
	ip netns add "$NS" || die "cannot create netns $NS"
	BENCH_NS=$NS ip netns exec "$NS" "$0" "$@"
	exit
fi
FLUSHER=$(stage_helper "$FLUSHER") || exit
FLUSHER6=$(stage_helper "$FLUSHER6") || exit
CHURNER=$(stage_helper "$CHURNER") || exit
mapfile -t IP_STOCK < <(stage "$(command -v ip)" ip-stock)
[[ ${#IP_STOCK[@]} -gt 0 ]] || die "cannot copy ip to /tmp"
IP_PATCHED=()
if [[ -n $BENCH_IP_PATCHED ]]; then
	mapfile -t IP_PATCHED < <(stage "$BENCH_IP_PATCHED" ip-patched)
	[[ ${#IP_PATCHED[@]} -gt 0 ]] || die "cannot copy $BENCH_IP_PATCHED to /tmp"
fi
# A dummy device, or a veth pair where dummy is not available.
if ! ip link add name "$DEV" type dummy 2>/dev/null; then
	ip link add name "$DEV" type veth peer name "${DEV}p" ||
		die "cannot create $DEV"
	ip link set dev "${DEV}p" up
fi
sysctl -qw net.ipv6.conf."$DEV".disable_ipv6=1
ip link set dev "$DEV" up || die "cannot set $DEV up"
if [[ -n $BENCH_HOST6$BENCH_ONE6 ]]; then
	ip link add name "$DEV6" type dummy || die "cannot create $DEV6"
	sysctl -qw net.ipv6.conf."$DEV6".addr_gen_mode=1
	ip link set dev "$DEV6" up || die "cannot set $DEV6 up"
fi

for layout in $LAYOUTS; do
	for n in $(sizes "$layout"); do
		for m in $(methods "$layout"); do
			if skip "$layout" "$m" "$n"; then
				log "$layout N=$n: $m skipped (N > max, or no IFA_F_FLUSH)"
				continue
			fi
			run_one "$layout" "$n" "$m"
		done
	done
done
[[ -z $BENCH_ADD_N$BENCH_SMALL ]] || promote 1
for layout in host rfc one; do
	for n in $BENCH_ADD_N; do
		if [[ -n $BENCH_ADD_BATCH ]] && ((n > BENCH_ADD_BATCH)); then
			log "$layout N=$n: ip -batch skipped (N > max)"
			continue
		fi
		add_batch "$layout" "$n"
	done
done
for n in $BENCH_SMALL; do
	for layout in host one; do
		small "$layout" "$n"
	done
done

print_tables
