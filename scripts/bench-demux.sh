#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark net.ipv4.ip_early_demux=0 against =1, meant for one boot of the
# test VM (numbers from QEMU/TCG only compare with each other):
#
#   scripts/bench-demux.sh --build                  (on the host: helper)
#   scripts/vm-run.sh scripts/bench-demux.sh [-r REPS] [-t SECONDS]
#
# - fwd:    UDP blaster -> router namespace -> sink, the knob toggled on
#           the router (early demux is a wasted socket lookup there);
#           metric: packets per second reaching the sink's device.
# - rr-udp: connected UDP request-response between two namespaces, the
#           knob toggled on both; metric: transactions per second.
# - rr-tcp: the same over an established TCP connection.
#
# Runs alternate 0,1 / 1,0 to cancel drift; each repetition gives a ratio
# (rate with 1) / (rate with 0).  Reported: medians of the rates, and the
# median, min and max of the ratios.
set -u

TOP=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
SRC=$TOP/scripts/bench/edmx_bench.c
BIN=$TOP/scripts/bench/edmx_bench
REPS=5
SECS=2

build()
{
	${CC:-cc} -O2 -Wall -Wextra -Werror -o "$BIN" "$SRC"
}

while [ $# -gt 0 ]; do
	case $1 in
	--build) build; exit ;;
	-r) REPS=$2; shift ;;
	-t) SECS=$2; shift ;;
	*) echo "usage: $0 [--build] [-r REPS] [-t SECONDS]" >&2; exit 2 ;;
	esac
	shift
done

[ "$(id -u)" -eq 0 ] || { echo "need root" >&2; exit 4; }
if [ ! -x "$BIN" ] || [ "$SRC" -nt "$BIN" ]; then
	build || { echo "cannot build $BIN (run --build on the host)" >&2; exit 1; }
fi

SUFFIX=$(mktemp -u XXXXXX)
SRCNS=bsrc-$SUFFIX RTR=brtr-$SUFFIX DST=bdst-$SUFFIX
CLI=bcli-$SUFFIX SRV=bsrv-$SUFFIX
ALL_NS="$SRCNS $RTR $DST $CLI $SRV"

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
	veth "$CLI" c0 10.2.1.1 "$SRV" v0 10.2.1.2
}

set_demux()
{
	local val=$1 ns; shift

	for ns in "$@"; do
		in_ns "$ns" sysctl -qw net.ipv4.ip_early_demux="$val" ||
			return
	done
}

# run_case NAME -- the knob namespaces -- helper arguments; prints, per
# repetition, "rate0 rate1".
run_case()
{
	local field=$1 rep v r0 r1 out; shift
	local -a nss=()

	while [ "$1" != -- ]; do
		nss+=("$1")
		shift
	done
	shift

	for ((rep = 0; rep < REPS; rep++)); do
		local order="0 1"

		((rep % 2)) && order="1 0"
		for v in $order; do
			set_demux "$v" "${nss[@]}" || return
			out=$("$BIN" "$@" -t "$SECS") || return
			r=$(awk -v f="$field" '{
				for (i = 1; i < NF; i++)
					if ($i == f) print $(i + 1)
			}' <<< "$out")
			if [ "$v" = 0 ]; then r0=$r; else r1=$r; fi
		done
		echo "$r0 $r1"
	done
}

# report NAME UNIT: reads "rate0 rate1" lines.
report()
{
	awk -v name="$1" -v unit="$2" '
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
	}
	END {
		if (!n) { printf "%-8s no data\n", name; exit 1 }
		printf "%-8s demux=0 %9.0f %s  demux=1 %9.0f %s  " \
		       "ratio 1/0: median %.3f min %.3f max %.3f (n=%d)\n",
		       name, median(z, n), unit, median(o, n), unit,
		       median(q, n), min, max, n
	}'
}

setup || { echo "setup failed" >&2; exit 1; }
echo "kernel $(uname -r), $(nproc) CPUs, $REPS x ${SECS}s per point"

run_case pps "$RTR" -- fwd -s "$SRCNS" -d "$DST" -a 10.1.2.1 -i d0 |
	report fwd pps
run_case tps "$CLI" "$SRV" -- rr -c "$CLI" -s "$SRV" -a 10.2.1.2 -P udp |
	report rr-udp tps
run_case tps "$CLI" "$SRV" -- rr -c "$CLI" -s "$SRV" -a 10.2.1.2 -P tcp |
	report rr-tcp tps
