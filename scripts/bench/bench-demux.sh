#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark the early demux knobs, meant for one boot of the test VM
# (numbers from QEMU only compare with each other):
#
#   scripts/bench/bench-demux.sh --build     (on the host: the helper, lib.sh build_helper)
#   ICOUNT=1 VM_ENV=ICOUNT scripts/vm/vm-exec.sh scripts/bench/bench-demux.sh \
#	[-r REPS] [-t SECONDS]				(make bench-demux does this)
#
# Cases, each a pair of settings of net.ipv4.{ip,udp,tcp}_early_demux
# ("A" -> "B"), toggled in the namespaces named:
# - fwd:     UDP blaster -> router namespace -> sink, ip_early_demux 0 -> 1
#            on the router (early demux is a wasted socket lookup there);
#            metric: packets per second reaching the sink's device.
# - fwd-udp: the same, udp_early_demux 0 -> 1 with ip_early_demux=1;
# - fwd-tcp: the same, tcp_early_demux 0 -> 1 with ip_early_demux=1;
# - rr-udp:  connected UDP request-response between two namespaces,
#            ip_early_demux 0 -> 1 on both; metric: transactions per second;
# - rr-tcp:  the same over an established TCP connection;
# - direct:  the blaster straight into the sink, no router (no knob): the
#            cost of sending and sinking a packet, to tell the router's
#            share of a forwarded packet.
#
# Runs alternate A,B / B,A to cancel drift; each repetition gives a ratio
# (rate with B) / (rate with A).  Reported: medians of the rates, and the
# median, min and max of the ratios.  With ICOUNT=1 (QEMU instruction
# counting, scripts/vm/vm-exec.sh) a guest second is 10^9 guest instructions,
# so 10^9 / rate is the instructions per packet or transaction; then the
# report also gives that for A and B, the median of the repetitions'
# differences B - A (paired) and each repetition's, and for the fwd
# cases the difference as a share of the router's own instructions per
# packet (fwd minus direct).
#
# Not -e: a measurement that fails is reported in its table row, and the
# namespaces are removed on the way out.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
REPS=5
SECS=1
BIN=$(build_helper "$TOP/scripts/bench/edmx_bench.c" -static) || exit

while [ $# -gt 0 ]; do
	case $1 in
	--build) exit 0 ;;
	-r) REPS=$2; shift ;;
	-t) SECS=$2; shift ;;
	*) echo "usage: $0 [--build] [-r REPS] [-t SECONDS]" >&2; exit 2 ;;
	esac
	shift
done

[ "$(id -u)" -eq 0 ] || { echo "need root" >&2; exit 4; }
BIN=$(stage_helper "$BIN") || exit

SUFFIX=$(mktemp -u XXXXXX)
SRCNS=bsrc-$SUFFIX RTR=brtr-$SUFFIX DST=bdst-$SUFFIX
CLI=bcli-$SUFFIX SRV=bsrv-$SUFFIX DSRC=bdsrc-$SUFFIX DDST=bddst-$SUFFIX
ALL_NS="$SRCNS $RTR $DST $CLI $SRV $DSRC $DDST"

cleanup()
{
	local ns

	for ns in $ALL_NS; do
		ip netns del "$ns" 2>/dev/null
	done
}
trap cleanup EXIT

in_ns()
{
	local ns=$1; shift

	ip netns exec "$ns" "$@"
}

# veth NS1 DEV1 ADDR1 NS2 DEV2 ADDR2 (IPv4 /24)
veth()
{
	ip -n "$1" link add "$2" type veth peer name "$5" netns "$4" &&
	ip -n "$1" addr add "$3/24" dev "$2" &&
	ip -n "$4" addr add "$6/24" dev "$5" &&
	ip -n "$1" link set "$2" up &&
	ip -n "$4" link set "$5" up
}

setup()
{
	local ns

	for ns in $ALL_NS; do
		ip netns add "$ns" || return
		ip -n "$ns" link set lo up
	done
	veth "$SRCNS" s0 10.1.1.1 "$RTR" r0 10.1.1.2 &&
	veth "$RTR" r1 10.1.2.2 "$DST" d0 10.1.2.1 &&
	ip -n "$SRCNS" route add default via 10.1.1.2 &&
	ip -n "$DST" route add default via 10.1.2.2 &&
	in_ns "$RTR" sysctl -qw net.ipv4.ip_forward=1 &&
	veth "$CLI" c0 10.2.1.1 "$SRV" v0 10.2.1.2 &&
	veth "$DSRC" x0 10.3.1.1 "$DDST" x1 10.3.1.2
}

# set_demux "IP UDP TCP" NS...: the three knobs in each namespace.
set_demux()
{
	local ip udp tcp ns

	read -r ip udp tcp <<< "$1"; shift
	for ns in "$@"; do
		in_ns "$ns" sysctl -qw net.ipv4.ip_early_demux="$ip" \
			net.ipv4.udp_early_demux="$udp" \
			net.ipv4.tcp_early_demux="$tcp" || return
	done
}

# run_case FIELD "A" "B" NS... -- helper arguments: A and B are settings
# for set_demux; prints, per repetition, "rateA rateB".
run_case()
{
	local field=$1 a=$2 b=$3 rep v r ra rb out; shift 3
	local -a nss=()

	while [ "$1" != -- ]; do
		nss+=("$1")
		shift
	done
	shift

	for ((rep = 0; rep < REPS; rep++)); do
		local order=(A B)

		((rep % 2)) && order=(B A)
		for v in "${order[@]}"; do
			if [ "$v" = A ]; then
				set_demux "$a" "${nss[@]}" || return
			else
				set_demux "$b" "${nss[@]}" || return
			fi
			out=$("$BIN" "$@" -t "$SECS") || return
			r=$(field "$field" <<< "$out")
			if [ "$v" = A ]; then ra=$r; else rb=$r; fi
		done
		echo "$ra $rb"
	done
}

# field NAME: the value after NAME in the helper's output line.
field()
{
	awk -v f="$1" '{
		for (i = 1; i < NF; i++)
			if ($i == f) print $(i + 1)
	}'
}

# report NAME UNIT "A" "B" [BASE_RATE]: reads "rateA rateB" lines.  With
# ICOUNT=1 also instructions per unit, paired per repetition: B - A is the
# median of the repetitions' differences (not the difference of two
# medians, which can come from different repetitions), each repetition's
# difference listed; with BASE_RATE (the direct case's median rate) the
# median B - A as a share of the instructions above that base.
report()
{
	awk -v name="$1" -v unit="$2" -v a="$3" -v b="$4" -v base="${5:-}" \
	    -v icount="${ICOUNT:-0}" '
	function median(a, n,	i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		n++; z[n] = $1; o[n] = $2; q[n] = $1 > 0 ? $2 / $1 : 0
		if (n == 1 || q[n] < min) min = q[n]
		if (n == 1 || q[n] > max) max = q[n]
		if ($1 > 0 && $2 > 0) {
			m++; ia[m] = 1e9 / $1; ib[m] = 1e9 / $2
			d[m] = ib[m] - ia[m]; reps = reps sprintf(" %+.0f", d[m])
		}
	}
	END {
		if (!n) { printf "%-8s no data\n", name; exit 1 }
		ma = median(z, n); mb = median(o, n); mq = median(q, n)
		printf "%-8s [%s] %9.0f %s  [%s] %9.0f %s  " \
		       "ratio B/A: median %.4f min %.4f max %.4f " \
		       "(spread %+.2f%% %+.2f%%, n=%d)\n",
		       name, a, ma, unit, b, mb, unit, mq, min, max,
		       (min / mq - 1) * 100, (max / mq - 1) * 100, n
		if (icount != 1 || m != n)
			exit
		mia = median(ia, m); mib = median(ib, m); md = median(d, m)
		printf "%-8s instructions per %s: A %.0f  B %.0f  B - A %+.0f",
		       name, unit == "pps" ? "packet" : "transaction",
		       mia, mib, md
		if (base > 0 && mia > 1e9 / base)
			printf "  (%+.1f%% of the router'"'"'s %.0f)",
			       md / (mia - 1e9 / base) * 100, mia - 1e9 / base
		printf "\n%-8s B - A per repetition:%s\n", name, reps
	}'
}

# median: of the numbers on stdin, one per line.
median()
{
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	}'
}

setup || { echo "setup failed" >&2; exit 1; }
echo "kernel $(uname -r), $(nproc) CPUs, $REPS x ${SECS}s per point," \
	"icount ${ICOUNT:-0}; settings are \"ip udp tcp\"_early_demux"

direct=$(for ((rep = 0; rep < REPS; rep++)); do
		"$BIN" fwd -s "$DSRC" -d "$DDST" -a 10.3.1.2 -i x1 -t "$SECS" |
			field pps
	done | median)
echo "direct   (no router) $direct pps" \
	"$([ "${ICOUNT:-0}" = 1 ] && [ -n "$direct" ] &&
	   awk -v r="$direct" 'BEGIN { printf "= %.0f instructions per packet", 1e9 / r }')"
fwd=(fwd -s "$SRCNS" -d "$DST" -a 10.1.2.1 -i d0)
run_case pps "0 1 1" "1 1 1" "$RTR" -- "${fwd[@]}" |
	report fwd pps "0 1 1" "1 1 1" "$direct"
run_case pps "1 0 1" "1 1 1" "$RTR" -- "${fwd[@]}" |
	report fwd-udp pps "1 0 1" "1 1 1" "$direct"
run_case pps "1 1 0" "1 1 1" "$RTR" -- "${fwd[@]}" |
	report fwd-tcp pps "1 1 0" "1 1 1" "$direct"
run_case tps "0 1 1" "1 1 1" "$CLI" "$SRV" -- \
	rr -c "$CLI" -s "$SRV" -a 10.2.1.2 -P udp |
	report rr-udp tps "0 1 1" "1 1 1"
run_case tps "0 1 1" "1 1 1" "$CLI" "$SRV" -- \
	rr -c "$CLI" -s "$SRV" -a 10.2.1.2 -P tcp |
	report rr-tcp tps "0 1 1" "1 1 1"
