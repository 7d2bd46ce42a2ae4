#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Draw the flush times of one scripts/bench/bench-flush.sh run against N, per
# method, on log-log axes (one panel per layout): a linear method and a
# quadratic one are lines of slope 1 and 2.
#
#   scripts/bench/flush-plot.sh OUTPUT [PNG]
#
# OUTPUT is the run's output file ($RUNS/<run>/output, the "[bench] LAYOUT
# N=... METHOD: add ...s flush ...s" lines); PNG defaults to flush.png
# beside it.  Needs gnuplot (Debian: gnuplot-nox); the data the plot was
# drawn from is written beside the PNG (.dat).
set -eu

out=${1:?usage: flush-plot.sh OUTPUT [PNG]}
png=${2:-$(dirname "$out")/flush.png}
dat=${png%.png}.dat
command -v gnuplot >/dev/null || { echo "gnuplot not installed" >&2; exit 4; }

# "layout method N seconds", sorted by layout, method, N.
rows=$(sed -n 's/^\[bench\] \([a-z]*\) N=\([0-9]*\) \([a-z]*\): add [0-9.]*s flush \([0-9.]*\)s.*/\1 \3 \2 \4/p' \
	"$out" | sort -k1,1 -k2,2 -k3,3n)
[ -n "$rows" ] || { echo "no flush timings in $out" >&2; exit 1; }
# The data file: one gnuplot data block ("N seconds") per layout and
# method, in that order, each headed by a comment naming them.
awk '{ k = $1 " " $2
	if (k != prev) { if (NR > 1) printf "\n\n"; print "# " k; prev = k }
	print $3, $4 }' <<< "$rows" >"$dat"

layouts=$(cut -d' ' -f1 <<< "$rows" | uniq)
nl=$(wc -w <<< "$layouts")
title=$(grep -m1 '^Kernel ' "$out" | cut -d';' -f1 || true)
mode=$(cat "$(dirname "$out")/vm-mode" 2>/dev/null || true)

{
	echo "set terminal pngcairo size $((520 * nl)),480 noenhanced"
	echo "set output '$png'"
	echo "set multiplot layout 1,$nl title '${title:-flush}${mode:+ ($mode)}'"
	echo 'set logscale xy; set grid; set key top left'
	echo 'set xlabel "addresses (N)"; set ylabel "flush time (s, guest clock)"'
	# One colour per method in every panel.
	all=$(cut -d' ' -f2 <<< "$rows" | sort -u)
	i=0
	for l in $layouts; do
		echo "set title '$l'"
		printf 'plot'
		sep=
		for m in $(awk -v l="$l" '$1 == l { print $2 }' <<< "$rows" | uniq); do
			lt=$(grep -nx "$m" <<< "$all" | cut -d: -f1)
			printf "%s '%s' index %d using 1:2 with linespoints lt %d title '%s'" \
				"$sep" "$dat" "$i" "$lt" "$m"
			sep=,
			i=$((i + 1))
		done
		echo
	done
	echo 'unset multiplot'
} | gnuplot
echo "$png"
