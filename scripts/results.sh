#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make results`: every published table of measurements, generated from the
# committed raw output of the run it comes from (Documentation/runs/<id>/:
# the benchmark's output, and the meta file that scripts/bench/bench.sh
# writes: the command that reproduces the run, the revisions, the mode).
#
#   scripts/results.sh           rewrite the generated blocks of the
#                                Markdown files; check the patches
#   scripts/results.sh --check   write nothing (check-static runs this)
#   scripts/results.sh show FIG  print one figure (to paste into a commit
#                                message of $CACHE/dev, then make patches)
#
# The figures are defined below, each from ONE run (FLUSH_RUN...), or,
# where it compares two kernels, from two boots of the same command that
# it names both of; ratios are computed here, never typed.  Where they
# appear:
#   - Markdown: between "<!-- results: FIG -->" and "<!-- end results -->";
#   - patches/: verbatim in the patch named in FIGURES_IN (a commit message
#     cannot carry markers; the check finds the figure's text in it).
# It fails (exit 1) when a generated text differs from what is in the
# tree, when a run cited lacks its files, and when a Markdown table row
# or a line of a patch's message or cover letter holds two or more
# decimal figures outside a generated figure: a table that cites no run;
# and when a run of the series kernel measured other kernel code than
# patches/ holds (same_code).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=$TOP/Documentation/runs

# The runs the published figures come from.  A re-measurement commits a
# new directory under Documentation/runs/ and changes the id here.
FLUSH_RUN=20261203-235356-bench-flush.rvZ1
FLUSH_BASE_RUN=20261203-225822-bench-flush.kr1r
DEMUX_RUN=20261204-010443-bench-demux.HGuW
RING_RUN=20261204-010844-bench-ring.xqq4
# The filtered flushes: stock ip against the iproute2 companion's ip.
FILT_RUN=20261204-141755-bench-flush.nSHZ

# The patches each figure must appear in, verbatim.
FIGURES_IN=(
	"filtered 2-net-next-ifa-flush/0000-cover-letter.patch"
	"filtered 2-net-next-ifa-flush/0002-*.patch"
	"filtered iproute2/0003-*.patch"
	"flush-cost 2-net-next-ifa-flush/0000-cover-letter.patch"
	"flush-cost 2-net-next-ifa-flush/0003-*.patch"
	"flag-vs-secfirst 2-net-next-ifa-flush/0002-*.patch"
	"plain-vs-base 2-net-next-ifa-flush/0001-*.patch"
)
# The Markdown blocks name their figure: <!-- results: FIG -->.
# The Markdown files that may hold tables of figures (all must be generated).
MARKDOWN=(README.md Documentation/*.md)

die() {
	echo "results.sh: $*" >&2
	exit 1
}

# need RUN: the run's directory, or die if a file is missing.
need() {
	local f
	[ -n "$1" ] || die "a figure needs a run that is not set"
	for f in meta output; do
		[ -f "$RUNS/$1/$f" ] || die "Documentation/runs/$1/$f missing"
	done
}

# meta RUN KEY: a value of the run's meta file.
meta() {
	sed -n "s/^$2: //p" "$RUNS/$1/meta" | head -n 1
}

# cell RUN HEADER COLUMN KEY...: a cell of a Markdown table that a
# bench-flush run printed ("" if "-"): the table whose header row starts
# "| HEADER |", its row whose first cells are KEY..., its column COLUMN.
cell() {
	local r=$1 hdr=$2 c=$3
	shift 3
	awk -F'|' -v hdr="| $hdr |" -v c="$c" -v keys="$*" '
		BEGIN { nk = split(keys, k, " ") }
		index($0, hdr) == 1 {
			for (i = 2; i < NF; i++) {
				h = $i
				gsub(/^ +| +$/, "", h)
				col[h] = i
			}
			next
		}
		col[c] {
			for (j = 1; j <= nk; j++)
				if ($(j + 1) != " " k[j] " ")
					next
			v = $col[c]
			gsub(/ /, "", v)
			if (v != "-")
				print v
			exit
		}' "$RUNS/$r/output"
}

# val RUN LAYOUT N COLUMN: a cell of bench-flush's main table.
val() {
	cell "$1" layout "$4" "$2" "$3"
}

# ratio A B: "xA/B" (one decimal below 10, none above), "-" if missing.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "" || b == "" || b <= 0) { print "-"; exit }
		r = a / b
		printf(r < 10 ? "x%.1f" : "x%.0f", r) }'
}

# growth A B: "xA/B" with two decimals (how a time grows with N).
growth() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "" || b == "" || b <= 0) print "-"
		else printf("x%.2f", a / b) }'
}

# grew RUN LAYOUT METHOD N1 N2: growth of METHOD's time from N1 to N2.
grew() {
	growth "$(val "$1" "$2" "$5" "$3")" "$(val "$1" "$2" "$4" "$3")"
}

# what LAYOUT N: the row's label.
what() {
	local n
	n=$(sed ':a; s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta' <<<"$2")
	case $1 in
	one) echo "$n in one subnet" ;;
	rfc) echo "$n in /24s of 250" ;;
	host) echo "$n /32s" ;;
	esac
}

# cite [LABEL:]RUN...: the source line(s) of a figure, wrapped to 72
# columns.
cite() {
	local r l
	for r in "$@"; do
		l=
		[[ $r != *:* ]] || l="${r%%:*} " r=${r#*:}
		echo "${l}run $r ($(meta "$r" icount | sed 's/^1$/instruction counting/;s/^0$/no instruction counting/')): $(meta "$r" command)"
	done | fold -s -w 70 | sed 's/^/  /; s/ *$//'
}

# The cost of emptying a device by method, patch 2.3 and the cover letter.
fig_flush_cost() {
	local r=$FLUSH_RUN row l n ip fp bulk
	need "$r"
	echo "  seconds to empty a device   stock ip    flag    bulk  ip/bulk  flag/bulk"
	for row in one,40000 rfc,40000 host,40000 host,80000; do
		l=${row%,*} n=${row#*,}
		ip=$(val "$r" "$l" "$n" ip) fp=$(val "$r" "$l" "$n" flagprim)
		bulk=$(val "$r" "$l" "$n" bulk)
		printf '  %-25s %8s %7s %7s %8s %10s\n' "$(what "$l" "$n")" \
			"${ip:--}" "${fp:--}" "${bulk:--}" "$(ratio "$ip" "$bulk")" \
			"$(ratio "$fp" "$bulk")"
	done
	printf '  %s %s, %s %s; %s %s\n' \
		"from 40,000 to 80,000 /32s: ip" \
		"$(grew "$r" host ip 40000 80000)" \
		"flag" \
		"$(grew "$r" host flagprim 40000 80000)" \
		"bulk" \
		"$(grew "$r" host bulk 40000 80000)"
	printf '  %s %s s (the longest RTNL hold)\n' \
		"bulk request alone, 80,000 /32s:" \
		"$(val "$r" host 80000 "bulk req")"
}

# IFA_F_FLUSH against deleting the secondaries first, patch 2.2.
fig_flag_vs_secfirst() {
	local r=$FLUSH_RUN row l n sec fp fl
	need "$r"
	echo "  seconds to empty a device   secfirst  flag:prim  flag:all  secfirst/"
	echo "                                                                flag:prim"
	for row in one,20000 one,40000 rfc,20000 rfc,40000; do
		l=${row%,*} n=${row#*,}
		sec=$(val "$r" "$l" "$n" secfirst) fp=$(val "$r" "$l" "$n" flagprim)
		fl=$(val "$r" "$l" "$n" flag)
		printf '  %-25s %10s %10s %9s %10s\n' "$(what "$l" "$n")" \
			"${sec:--}" "${fp:--}" "${fl:--}" "$(ratio "$sec" "$fp")"
	done
	printf '%s: secfirst %s and %s, flag:prim %s and %s\n' \
		"from 20,000 to 40,000 (one subnet; /24s)" \
		"$(grew "$r" one secfirst 20000 40000)" \
		"$(grew "$r" rfc secfirst 20000 40000)" \
		"$(grew "$r" one flagprim 20000 40000)" \
		"$(grew "$r" rfc flagprim 20000 40000)" |
		fold -s -w 70 | sed 's/^/  /; s/ *$//'
	printf '  stock "ip address flush", 40,000 in /24s: %s s\n' \
		"$(val "$r" rfc 40000 ip)"
}

# promote_secondaries=0 in dump order, base kernel against the series,
# patch 2.1: two boots, so per-row ratios only.
fig_plain_vs_base() {
	local b=$FLUSH_BASE_RUN s=$FLUSH_RUN row l n x y
	need "$b"
	need "$s"
	echo "  seconds to empty a device       base    series  base/series"
	for row in one,20000 one,40000 rfc,20000 rfc,40000 host,20000 host,40000; do
		l=${row%,*} n=${row#*,}
		x=$(val "$b" "$l" "$n" plain) y=$(val "$s" "$l" "$n" plain)
		printf '  %-25s %10s %9s %12s\n' "$(what "$l" "$n")" "${x:--}" \
			"${y:--}" "$(ratio "$x" "$y")"
	done
}

# fval RUN N COLUMN: a cell of bench-flush's filtered-flush table.
fval() {
	cell "$1" N "$3" "$2"
}

# Filtered flushes, stock ip against the iproute2 companion's ip (which
# deletes a primary with IFA_F_FLUSH where the selector picks its whole
# subnet): the companion's patch 3, the cover letter.
fig_filtered() {
	local r=$FILT_RUN sel n a b sizes
	need "$r"
	read -r -a sizes < <(sed -n 's/^command: .*BENCH_FILT="\([0-9 ]*\)".*/\1/p' "$RUNS/$r/meta")
	echo "  seconds to flush half of the /24s   stock ip   patched ip   stock/patched"
	for sel in to label; do
		for n in "${sizes[@]}"; do
			a=$(fval "$r" "$n" "ip $sel") b=$(fval "$r" "$n" "ipnew $sel")
			printf '  %-35s %8s %12s %15s\n' \
				"$(printf '%-6s' "$sel,") $(what rfc "$n")" "${a:--}" \
				"${b:--}" "$(ratio "$a" "$b")"
		done
	done
	printf '  patched ip from 40,000 to 80,000: to %s, label %s\n' \
		"$(growth "$(fval "$r" 80000 "ipnew to")" "$(fval "$r" 40000 "ipnew to")")" \
		"$(growth "$(fval "$r" 80000 "ipnew label")" "$(fval "$r" 40000 "ipnew label")")"
}

# measured RUN: what the run measured, in words.
measured() {
	local rev
	rev=$(meta "$1" repository | cut -c1-12)
	case $(meta "$1" command) in
	*'BENCH_KERNEL="base"'*) echo "the base kernel, no patch; scripts of commit $rev" ;;
	*) echo "the series as in patches/ of commit $rev" ;;
	esac
}

# run_header RUN: the lines above a whole run in Markdown: its id, mode,
# what it measured and the command that reproduces it.
run_header() {
	need "$1"
	echo "Run \`$1\` ($(meta "$1" icount | sed 's/^1$/instruction counting/;s/^0$/no instruction counting/'); $(measured "$1")), reproduced by:"
	echo
	echo "    $(meta "$1" command)"
	echo
}

# The whole table of a bench-flush run, as the benchmark printed it; with
# "noip", without the columns and reports of the patched ip (ipnew), whose
# code same_code does not hold the run to.
fig_md_flush() {
	run_header "$1"
	sed -n '/^Kernel /,$p' "$RUNS/$1/output" |
		if [ "${2:-}" = noip ]; then
			awk -F'|' -v OFS='|' '
				/^\| layout \|/ { for (i = 2; i < NF; i++) {
						h = $i; gsub(/^ +| +$/, "", h)
						drop[i] = h ~ /ipnew/ } }
				/^\|/ { o = ""; for (i = 1; i <= NF; i++)
						if (!drop[i]) o = o (o == "" && i == 1 ? "" : "|") $i
					print o; next }
				/^- .* ipnew: / { next }
				{ print }'
		else
			cat
		fi
}

# A run's report as the benchmark printed it, without its progress lines.
fig_md_raw() {
	run_header "$1"
	echo '```'
	grep -v '^\[ *[0-9]*s\] ' "$RUNS/$1/output" | sed '/./,$!d'
	echo '```'
}

# The filtered-flush run: its own table and ip reports (its other
# layouts were not run).
fig_md_filtered() {
	run_header "$FILT_RUN"
	sed -n '/^Filtered flushes /,$p' "$RUNS/$FILT_RUN/output"
}
fig_md_flush_series() { fig_md_flush "$FLUSH_RUN" noip; }
fig_md_flush_base() { fig_md_flush "$FLUSH_BASE_RUN"; }

# The Markdown (code block) and plain figures, by name.
figure() {
	case $1 in
	flush-cost) fig_flush_cost ;;
	flag-vs-secfirst) fig_flag_vs_secfirst ;;
	plain-vs-base) fig_plain_vs_base ;;
	filtered) fig_filtered ;;
	md-flush-filtered) fig_md_filtered ;;
	md-demux) fig_md_raw "$DEMUX_RUN" ;;
	md-ring) fig_md_raw "$RING_RUN" ;;
	md-flush-series) fig_md_flush_series ;;
	md-flush-base) fig_md_flush_base ;;
	*) die "no figure $1" ;;
	esac
}

# fig_runs FIG: the runs a plain figure comes from, as cite takes them.
fig_runs() {
	case $1 in
	flush-cost | flag-vs-secfirst) echo "$FLUSH_RUN" ;;
	plain-vs-base) echo "base:$FLUSH_BASE_RUN series:$FLUSH_RUN" ;;
	filtered) echo "$FILT_RUN" ;;
	*) die "no runs for figure $1" ;;
	esac
}

# For the Markdown files, a plain figure is put in a code block, with the
# runs it comes from and the commands that reproduce them (which commit
# messages and cover letters do not carry).
md_figure() {
	case $1 in
	md-*) figure "$1" ;;
	*)
		echo '```'
		figure "$1"
		# shellcheck disable=SC2046 # one word per run
		cite $(fig_runs "$1")
		echo '```'
		;;
	esac
}

# regen FILE: FILE with its generated blocks regenerated, on stdout.
regen() {
	local line name=
	while IFS= read -r line; do
		if [ -n "$name" ]; then
			[ "$line" = "<!-- end results -->" ] || continue
			md_figure "$name"
			name=
		elif [[ $line =~ ^'<!-- results: '([a-z0-9-]+)' -->'$ ]]; then
			echo "$line"
			name=${BASH_REMATCH[1]}
			continue
		fi
		echo "$line"
	done <"$1"
	[ -z "$name" ] || die "$1: no <!-- end results --> after $name"
}

# loose_md FILE: lines outside generated blocks: table rows with two or
# more figures, and any ratio.
loose_md() {
	awk "$NFIG"'/^<!-- results: /{g=1} /^<!-- end results -->/{g=0; next}
		!g && ((/^\|/ && nfig($0) > 1) || nratio($0)) {
			print FILENAME ":" FNR ": " $0 }' "$1"
}

# nfig(s), awk: how many measured figures s holds: a number with two or
# more decimals (0.474), or one with a unit (1.5 s, 4.5%, 12 Mpps), and a
# ratio (x2.31, x16) counts twice (it is two figures); not version numbers
# (7.3.4), addresses (10.0.0.1), patch numbers (2.3), prefix lengths
# (/24s) or 0x1000.
NFIG='function nfig(s,   n, t) {
	s = " " s " "
	t = s
	while (match(t, /[^0-9.][0-9]+\.[0-9][0-9]+[^0-9.]/) ||
	       match(t, /[^0-9.\/][0-9]+(\.[0-9]+)? ?(s|ms|us|%|pps|Mpps|tps)[^0-9A-Za-z_]/)) {
		n++
		t = substr(t, RSTART + RLENGTH - 1)
	}
	return n + 2 * nratio(s)
}
function nratio(s,   n) {
	s = " " s " "
	while (match(s, /[^0-9A-Za-z_]x[0-9]+(\.[0-9]+)?[^0-9A-Za-z_.]/)) {
		n++
		s = substr(s, RSTART + RLENGTH - 1)
	}
	return n
}
'

# message FILE: a patch's message and cover letter text (before the diff).
message() {
	awk '/^---$/ || /^diff --git/ {exit} {print}' "$1"
}

# kernel_code TREE|"" [ip]: the code a benchmark runs: the diff of every
# file outside tools/testing/, Documentation/ and man/, per patch
# (messages, cover letters, selftests and docs left out), of the kernel
# series and, with "ip", of the iproute2 companion; from the patches/ tree
# object TREE that a run's meta names, or ("") from patches/ in the work
# tree.
kernel_code() {
	local f
	if [ -n "$1" ]; then
		git -C "$TOP" ls-tree -r --name-only "$1" | sed "s|^|$1:|"
	else
		(cd "$TOP/patches" && ls -- */*.patch)
	fi | grep -v '/0000-cover-letter\.patch$' |
		{ if [ "${2:-}" = ip ]; then cat; else grep -v 'iproute2/'; fi; } | sort |
		while read -r f; do
			echo "== ${f#*:}"
			if [ -n "${1:-}" ]; then
				git -C "$TOP" show "$f"
			else
				cat "$TOP/patches/$f"
			fi | awk '/^diff --git / { keep = $3 !~ /^a\/(tools\/testing|Documentation|man)\// }
				/^-- $/ { keep = 0 } keep'
		done
}

# same_code RUN [ip]: fail unless the run measured the kernel code of
# patches/ (the figures stay valid when only messages, docs or selftests
# change); with "ip", the figures taken from it use the iproute2
# companion's ip (BENCH_IP_PATCHED), whose code must be the same too.
same_code() {
	local t
	need "$1"
	t=$(meta "$1" patches)
	[ -n "$t" ] || die "Documentation/runs/$1/meta names no patches tree"
	git -C "$TOP" cat-file -e "$t" 2>/dev/null ||
		die "run $1: patches tree $t is not in this repository"
	if [ "${2:-}" = ip ] && [ -z "$(meta "$1" ip-patched)" ] &&
		[[ $(meta "$1" command) != *BENCH_IP_PATCHED=* ]]; then
		die "run $1 used no patched ip (BENCH_IP_PATCHED)"
	fi
	kernel_code "$t" "${2:-}" >"$tmp/measured"
	kernel_code "" "${2:-}" >"$tmp/posted"
	if ! cmp -s "$tmp/measured" "$tmp/posted"; then
		echo "run $1 measured other kernel code than patches/ (tree $t):"
		{ diff -u "$tmp/measured" "$tmp/posted" || true; } | sed -n "3,20p"
		echo "  (re-run the benchmark, commit its run, set its id in scripts/results.sh)"
		return 1
	fi
}

rc=0
check=
case ${1:-} in
show)
	figure "${2:?usage: results.sh show FIG}"
	exit 0
	;;
--check) check=1 ;;
'') ;;
*) die "usage: results.sh [--check | show FIG]" ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$TOP"

# The runs of the series kernel measured the code as posted (the filtered
# flush run, the iproute2 companion's too).
for r in "$FLUSH_RUN" "$DEMUX_RUN" "$RING_RUN"; do
	[ -z "$r" ] || same_code "$r" || rc=1
done
[ -z "$FILT_RUN" ] || same_code "$FILT_RUN" ip || rc=1

for f in "${MARKDOWN[@]}"; do
	regen "$f" >"$tmp/new" || exit 1
	if ! cmp -s "$f" "$tmp/new"; then
		if [ -n "$check" ]; then
			echo "$f: generated figures differ from make results:"
			{ diff -u "$f" "$tmp/new" || true; } | sed -n "3,40p"
			rc=1
		else
			cp "$tmp/new" "$f"
			echo "updated $f"
		fi
	fi
	if loose_md "$f" | grep .; then
		echo "  ^ table rows with figures outside a generated block (no run cited)"
		rc=1
	fi
done

# The scaling plot of the flush run (scripts/results-plot.awk), an SVG that
# Documentation/results.md shows.
PLOT=Documentation/flush-scaling.svg
awk -v run="$FLUSH_RUN" -f scripts/results-plot.awk "$RUNS/$FLUSH_RUN/output" >"$tmp/plot"
if ! cmp -s "$PLOT" "$tmp/plot"; then
	if [ -n "$check" ]; then
		echo "$PLOT: differs from what make results draws from run $FLUSH_RUN"
		rc=1
	else
		cp "$tmp/plot" "$PLOT"
		echo "updated $PLOT"
	fi
fi

# Patches: every figure in its patch verbatim, and no other line of the
# message with two decimal figures.
declare -A covered
for entry in "${FIGURES_IN[@]}"; do
	fig=${entry%% *}
	# shellcheck disable=SC2086 # the glob names one patch
	set -- patches/${entry#* }
	if [ $# -ne 1 ] || [ ! -f "$1" ]; then
		die "FIGURES_IN: ${entry#* } is not one patch"
	fi
	figure "$fig" >"$tmp/fig"
	message "$1" >"$tmp/msg"
	if ! awk -v fig="$tmp/fig" 'BEGIN { while ((getline l < fig) > 0) f = f l "\n" }
			{ m = m $0 "\n" } END { exit index(m, f) ? 0 : 1 }' "$tmp/msg"; then
		echo "$1: figure $fig is not in the message as make results prints it"
		echo "  (scripts/results.sh show $fig; paste it into the commit of \$CACHE/dev, make patches)"
		rc=1
	fi
	covered[$1]+=$(cat "$tmp/fig")$'\n'
done
for p in patches/*/*.patch; do
	message "$p" >"$tmp/msg"
	# How a figure is reproduced lives in Documentation/results.md: no
	# run id, make command line or local path in what netdev reads.
	if grep -n -E '[0-9]{8}-[0-9]{6}-|(^|[^a-z])make (bench|check|results)|/var/(tmp|cache)/' \
		"$tmp/msg" | sed "s|^|$p:|"; then
		echo "  ^ run ids, make command lines or local paths in a message"
		rc=1
	fi
	printf '%s' "${covered[$p]:-}" >"$tmp/cov"
	awk -v cov="$tmp/cov" "$NFIG"'
		BEGIN { while ((getline l < cov) > 0) c[l] = 1 }
		!($0 in c) && nfig($0) > 1 { print FNR ": " $0; bad = 1 }
		END { exit bad }' "$tmp/msg" | sed "s|^|$p:|" && continue
	echo "  ^ figures outside a generated figure (no run cited)"
	rc=1
done
exit $rc
