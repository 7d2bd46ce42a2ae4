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
# The figures are defined below, each from ONE run (FLUSH_RUN...); where
# it compares two kernels, from one run that booted both (bench.sh
# BENCH_KERNEL=both: its base/ and series/ outputs; bench-packet-netns:
# series/ and 6.12/); ratios are computed here, never typed.  Where they appear:
#   - Markdown: between "<!-- results: FIG -->" and "<!-- end results -->";
#   - patches/: verbatim in the patch named in FIGURES_IN (a commit message
#     cannot carry markers; the check finds the figure's text in it).
# It fails (exit 1) when a generated text differs from what is in the
# tree, when a run cited lacks its files, when a run of the series kernel
# measured other kernel code than patches/ holds (same_code), when a run
# was built from other config fragments or driven by other helpers than
# this tree's, or from a tree with local changes (same_inputs), and when a
# number in the prose of a patch's message or cover letter, README.md or
# Documentation/*.md is neither in a generated figure nor in a named
# class of numbers that need no run nor in an entry of ALLOW that it
# verifies (figures, below; pending entries print a WARNING).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$TOP/scripts/lib.sh"
cd "$TOP"
RUNS=$TOP/Documentation/runs
# The numbers of the prose that no class covers, and how each is verified.
ALLOW=scripts/check/figures.allow

# The runs the published figures come from.  A re-measurement commits a
# new directory under Documentation/runs/ and changes the id here.
FLUSH_RUN=20261205-191045-bench-flush.JG6t
# Plain deletes, the base kernel against series 1 and 2 (SERIES_ONLY),
# one run of both kernels.
PLAIN_RUN=20261206-111931-bench-flush.vTBh
DEMUX_RUN=20261205-201151-bench-demux.0Ddm
RING_RUN=20261205-201558-bench-ring.3Cis
# The filtered flushes: stock ip against the iproute2 companion's ip.
FILT_RUN=20261205-191316-bench-flush.MKbH
# The keepalived case: the series kernel, then Debian's 6.12 (one run,
# a boot of each).
PNETNS_RUN=20261206-115838-bench-packet-netns.IgFA
# IPv6 flushes: stock ip against an ip that sends one bulk request.
FLUSH6_RUN=20261206-003919-bench-flush.AmW2
# Adds (series 5): one run of both kernels (make bench-flush
# BENCH_KERNEL=both: its base/ and series/ outputs).
ADD_RUN=20261206-085921-bench-flush.Cps1

# The patches each figure must appear in, verbatim.
FIGURES_IN=(
	"filtered 2-net-next-ifa-flush/0000-cover-letter.patch"
	"filtered 2-net-next-ifa-flush/0003-*.patch"
	"filtered iproute2/0003-*.patch"
	"flush-cost 2-net-next-ifa-flush/0000-cover-letter.patch"
	"flush-cost 2-net-next-ifa-flush/0005-*.patch"
	"flag-vs-secfirst 2-net-next-ifa-flush/0003-*.patch"
	"plain-vs-base 2-net-next-ifa-flush/0002-*.patch"
	"walk-stop 2-net-next-ifa-flush/0004-*.patch"
	"packet-netns 3-net-next-packet-ring/0000-cover-letter.patch"
	"flush6 2-net-next-ifa-flush/0000-cover-letter.patch"
	"flush6 2-net-next-ifa-flush/0006-*.patch"
	"add-host 5-net-next-ifa-add/0000-cover-letter.patch"
)
# The Markdown blocks name their figure: <!-- results: FIG -->.
# The Markdown files that may hold tables of figures (all must be generated).
MARKDOWN=(README.md Documentation/*.md)

die() {
	echo "results.sh: $*" >&2
	exit 1
}

# need RUN: the run's directory, or die if a file is missing: its meta
# and output, or, for a run of both kernels (bench.sh BENCH_KERNEL=both),
# its meta and the output of each kernel's boot, base/ and series/ (the
# keepalived case: series/ and 6.12/).
need() {
	local f files=(meta output)
	[ -n "$1" ] || die "a figure needs a run that is not set"
	[ ! -d "$RUNS/$1/base" ] || files=(meta base/output series/output)
	[ ! -d "$RUNS/$1/6.12" ] || files=(meta series/output 6.12/output)
	for f in "${files[@]}"; do
		[ -f "$RUNS/$1/$f" ] || die "Documentation/runs/$1/$f missing"
	done
}

# meta RUN KEY: a value of the run's meta file.
meta() {
	sed -n "s/^$2: //p" "$RUNS/$1/meta" | head -n 1
}

# cell RUN HEADER COLUMN KEY...: a cell of a Markdown table that a
# benchmark run printed ("" if "-"): the table whose header row starts
# "| HEADER |", its first row whose first cells are KEY... ("*": any),
# its column COLUMN.  RUN/base, RUN/series: a run of both kernels, the
# output of one.  The search ends where another table starts (a
# separator row other than the header's own): its rows are not the
# header's.
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
			intab = 1
			hdrline = NR
			next
		}
		/^\|[-:| ]+\|$/ {
			if (NR != hdrline + 1)
				intab = 0
			next
		}
		intab && col[c] {
			for (j = 1; j <= nk; j++)
				if (k[j] != "*" && $(j + 1) != " " k[j] " ")
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

# commas N: N with thousands separators.
commas() {
	sed ':a; s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta' <<<"$1"
}

# what LAYOUT N: the row's label.
what() {
	local n
	n=$(commas "$2")
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

# The cost of emptying a device by method, patch 2.4 and the cover letter.
fig_flush_cost() {
	local r=$FLUSH_RUN row l n ip fp bulk
	need "$r"
	echo "  seconds to empty a device   stock ip    flag    bulk  ip/bulk  flag/bulk"
	for row in one,40000 rfc,40000 host,20000 host,40000; do
		l=${row%,*} n=${row#*,}
		ip=$(val "$r" "$l" "$n" ip) fp=$(val "$r" "$l" "$n" flagprim)
		bulk=$(val "$r" "$l" "$n" bulk)
		printf '  %-25s %8s %7s %7s %8s %10s\n' "$(what "$l" "$n")" \
			"${ip:--}" "${fp:--}" "${bulk:--}" "$(ratio "$ip" "$bulk")" \
			"$(ratio "$fp" "$bulk")"
	done
	printf '  %s %s, %s %s; %s %s\n' \
		"from 20,000 to 40,000 /32s: ip" \
		"$(grew "$r" host ip 20000 40000)" \
		"flag" \
		"$(grew "$r" host flagprim 20000 40000)" \
		"bulk" \
		"$(grew "$r" host bulk 20000 40000)"
	printf '  %s %s s (the longest RTNL hold)\n' \
		"bulk request alone, 40,000 /32s:" \
		"$(val "$r" host 40000 "bulk req")"
}

# IFA_F_FLUSH against deleting the secondaries first, patch 2.3.
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

# plain_vs_base LAYOUT,N...: promote_secondaries=0 in dump order, base
# kernel against the series (series 1 and 2): the two boots of PLAIN_RUN.
plain_vs_base() {
	local b=$PLAIN_RUN/base s=$PLAIN_RUN/series row l n x y
	need "$PLAIN_RUN"
	echo "  seconds to empty a device       base    series  base/series"
	for row in "$@"; do
		l=${row%,*} n=${row#*,}
		x=$(val "$b" "$l" "$n" plain) y=$(val "$s" "$l" "$n" plain)
		printf '  %-25s %10s %9s %12s\n' "$(what "$l" "$n")" "${x:--}" \
			"${y:--}" "$(ratio "$x" "$y")"
	done
}

# Patch 2.2: one subnet, where only its fib_del_ifaddr() fast path
# changes the cost (the walk that patch 2.4 stops runs to the list's end
# either way).
fig_plain_vs_base() {
	plain_vs_base one,20000 one,40000
}

# Patch 2.4: many subnets and /32s, where the walk of __inet_del_ifa()
# stops (with patch 2.2's fast path, also in the series kernel); and how
# a /32 flush grows within the series boot.
fig_walk_stop() {
	local s=$PLAIN_RUN/series
	plain_vs_base rfc,20000 rfc,40000 host,20000 host,40000
	printf '  %s %s, %s %s\n' \
		"series, from 20,000 to 40,000 /32s: stock ip" \
		"$(grew "$s" host ip 20000 40000)" \
		"flag" \
		"$(grew "$s" host flagprim 20000 40000)"
}

# The IPv6 flushes: stock "ip -6 address flush" (one request per
# address) against one bulk request (flush6_bench's bulk6, which dumps
# first; "bulk req": the request alone), and the patched ip (ipnew6) where
# the run has it; the layouts and sizes those of the run's command.
# Stock ip is not run above BENCH_IP6_MAX (quadratic): its largest size
# then bounds it from below at the next.
fig_flush6() {
	local r=$FLUSH6_RUN l n a b q c what sizes cmd first last prev ipmax
	need "$r"
	cmd=$(meta "$r" command)
	ipmax=$(sed -n 's/.*BENCH_IP6_MAX="\{0,1\}\([0-9]*\).*/\1/p' <<<"$cmd")
	local pip=
	[[ $cmd != *BENCH_IP_PATCHED=* ]] || pip=1
	echo "  seconds to empty a device  stock ip -6     bulk  bulk req${pip:+  patched ip}  stock/bulk"
	for l in host6 one6; do
		read -r -a sizes < <(sed -n "s/.*BENCH_${l^^}=\"\([0-9 ]*\)\".*/\1/p" <<<"$cmd") ||
			sizes=()
		for n in "${sizes[@]}"; do
			a=$(cell "$r" layout ip6 "$l" "$n")
			b=$(cell "$r" layout bulk6 "$l" "$n")
			q=$(cell "$r" layout "bulk6 req" "$l" "$n")
			c=$(cell "$r" layout ipnew6 "$l" "$n")
			what="$(commas "$n") /128s"
			[ "$l" = host6 ] || what="$(commas "$n") in one /64"
			printf '  %-24s %12s %8s %9s' "$what" "${a:--}" "${b:--}" "${q:--}"
			[ -z "$pip" ] || printf ' %11s' "${c:--}"
			printf ' %11s\n' "$(ratio "$a" "$b")"
		done
		[ ${#sizes[@]} -ge 2 ] || continue
		what=/128s
		[ "$l" = host6 ] || what="in one /64"
		last=${sizes[-1]} prev=${sizes[-2]} first=${sizes[0]}
		printf '  bulk from %s to %s %s: %s (request alone %s)\n' \
			"$(commas "$prev")" "$(commas "$last")" "$what" \
			"$(growth "$(cell "$r" layout bulk6 "$l" "$last")" "$(cell "$r" layout bulk6 "$l" "$prev")")" \
			"$(growth "$(cell "$r" layout "bulk6 req" "$l" "$last")" "$(cell "$r" layout "bulk6 req" "$l" "$prev")")"
		a=$(cell "$r" layout ip6 "$l" "$prev")
		b=$(cell "$r" layout ip6 "$l" "$first")
		[ -z "$a" ] || [ -z "$b" ] || [ "$prev" = "$first" ] ||
			printf '  stock ip -6 from %s to %s %s: %s\n' \
				"$(commas "$first")" "$(commas "$prev")" "$what" "$(growth "$a" "$b")"
		if [ -n "$ipmax" ] && ((last > ipmax)) && [ -n "$a" ]; then
			printf '  stock ip -6 at %s (not run at %s) over bulk at %s: %s\n' \
				"$(commas "$prev")" "$(commas "$last")" "$(commas "$last")" \
				"$(ratio "$a" "$(cell "$r" layout bulk6 "$l" "$last")")"
		fi
	done
	return 0
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
	if [ -n "$(meta "$1" kernel-base)" ]; then
		echo "$(meta "$1" kernel-base | sed 's/ [^ ]*$//') with the same config fragments, no patch; scripts of commit $rev"
		return
	fi
	local cmd what="the series" only
	cmd=$(meta "$1" command)
	only=$(sed -n 's/.*SERIES_ONLY="\([^"]*\)".*/\1/p' <<<"$cmd")
	[ -z "$only" ] || what="the series $only"
	if [ -n "$(meta "$1" kernel-base-6.12)" ]; then
		echo "$what as in patches/ of commit $rev, then $(meta "$1" kernel-base-6.12 | sed 's/ [^ ]*$//') with the same config fragments, no patch, one boot each"
		return
	fi
	case $cmd in
	*'BENCH_KERNEL="base"'*) echo "the base kernel, no patch; scripts of commit $rev" ;;
	*'BENCH_KERNEL="both"'*) echo "the base kernel, no patch, then $what as in patches/ of commit $rev, one boot each" ;;
	*) echo "$what as in patches/ of commit $rev" ;;
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

# The keepalived case, series 3's cover letter: packet_rcv() calls per ARP
# on both kernels (exact counts, so two boots compare), and what the
# socket costs per ARP on the series kernel.
fig_packet_netns() {
	local n t o s ns col="packet_rcv per ARP" r=$PNETNS_RUN/series
	need "$PNETNS_RUN"
	# the namespace counts of the run with keepalived (kad) rows
	ns=$(awk -F' [|] ' '$3 == "kad" && !seen[$2]++ { print $2 }' \
		"$RUNS/$r/output")
	echo "  packet_rcv() calls per broadcast ARP, with keepalived (one VRRP"
	echo "  instance, its ETH_P_ARP socket) in each of N namespaces:"
	echo
	printf '  %-28s %8s %10s\n' "N namespaces, ARP into" "6.12" "this tree"
	for n in $ns; do
		for t in one all; do
			o=$(cell "$PNETNS_RUN/6.12" kernel "$col" '*' "$n" kad "$t")
			s=$(cell "$r" kernel "$col" '*' "$n" kad "$t")
			if [ -z "$o" ] || [ -z "$s" ]; then continue; fi
			printf '  %-28s %8s %10s\n' "$n, $t" \
				"$(commas "$(printf '%.0f' "$o")")" "$(printf '%.0f' "$s")"
		done
	done
	echo
	n=${ns##*$'\n'}
	printf '  guest instructions per ARP into one of %s namespaces, this tree:\n' "$n"
	printf '  no packet socket %s, keepalived %s, a protocol-0 socket instead %s\n' \
		"$(cell "$r" kernel "instr per ARP" '*' "$n" none one)" \
		"$(cell "$r" kernel "instr per ARP" '*' "$n" kad one)" \
		"$(cell "$r" kernel "instr per ARP" '*' "$n" p0 one)"
}

# A bench-flush run of both kernels: its header, then each boot's table.
fig_md_flush_both() {
	local k
	run_header "$1"
	for k in base series; do
		echo "The $k kernel's boot:"
		echo
		sed -n '/^Kernel /,$p' "$RUNS/$1/$k/output"
		echo
	done
}

# fig_md_pnetns RUN BOOT: one boot (series, 6.12) of a bench-packet-netns
# run: its table as printed, its notes ("# " lines) in a code block after
# it; the run's header above the series boot.
fig_md_pnetns() {
	if [ "$2" = series ]; then
		run_header "$1"
	else
		echo "The $2 kernel's boot of run \`$1\`:"
		echo
	fi
	grep '^|' "$RUNS/$1/$2/output"
	echo
	echo '```'
	sed -n 's/^# //p' "$RUNS/$1/$2/output"
	echo '```'
}

# add_sizes RUN KNOB: the sizes of a knob in the run's command.
add_sizes() {
	sed -n "s/^command: .*$2=\"\([0-9 ]*\)\".*/\1/p" "$RUNS/$1/meta"
}

# add_rows LABEL HEADER COLUMN LAYOUT N...: one row per N of a cell of
# both kernels' outputs of ADD_RUN (the table of HEADER, the row of
# LAYOUT and N, COLUMN): the base, the series, base/series, and each
# kernel's growth from the N of the row before.
add_rows() {
	local r=$ADD_RUN label=$1 hdr=$2 col=$3 l=$4 n x y px='' py='' gx gy
	shift 4
	for n in "$@"; do
		x=$(cell "$r/base" "$hdr" "$col" "$l" "$n")
		y=$(cell "$r/series" "$hdr" "$col" "$l" "$n")
		gx='' gy=''
		if [ -n "$px$py" ]; then
			gx=$(growth "$x" "$px") gy=$(growth "$y" "$py")
		fi
		printf '    %-17s %6s %8s %8s %7s %7s %7s\n' "$label" \
			"$(commas "$n")" "${x:--}" "${y:--}" "$(ratio "$x" "$y")" \
			"$gx" "$gy" | sed 's/ *$//'
		label='' px=${x:-0} py=${y:-0}
	done
}

# Series 5, from ONE run of both kernels (make bench-flush
# BENCH_KERNEL=both: ADD_RUN's base/ and series/): adding N addresses
# (BENCH_ADD_N) through one netlink socket (flush_bench -a) and through
# stock ip -batch, in each layout; deleting N /32s one request each in
# dump order (plain) and by stock ip; the base kernel against the series
# and how each grows with N.  Then what one address costs on a small
# device (BENCH_SMALL): the series against the base, where the series
# must cost no more.
fig_add() {
	local r=$ADD_RUN l n x y what reps sizes small
	need "$r"
	read -r -a sizes < <(add_sizes "$r" BENCH_ADD_N) || sizes=()
	printf '  %-19s %6s %8s %8s %7s %7s %7s\n' seconds N base series base/ \
		base series '' '' '' '' series growth growth | sed 's/ *$//'
	for l in host rfc one; do
		case $l in
		host) echo "  add /32s" ;;
		rfc) echo "  add /24s of 250" ;;
		one) echo "  add in one subnet" ;;
		esac
		add_rows "one socket" "add layout" socket "$l" "${sizes[@]}"
		add_rows "ip -batch" "add layout" "ip -batch" "$l" "${sizes[@]}"
	done
	echo "  delete /32s"
	add_rows "one by one" layout plain host "${sizes[@]}"
	add_rows "stock ip flush" layout ip host "${sizes[@]}"
	echo "  (growth: the time at N over the time at the N above)"
	read -r -a small < <(add_sizes "$r" BENCH_SMALL) || small=()
	[ ${#small[@]} -gt 0 ] || return 0
	reps=$(sed -n 's/^Small N, seconds for \([0-9]*\) .*/\1/p' "$RUNS/$r/series/output")
	echo
	echo "  one address added and deleted $(commas "$reps") times (one request"
	echo "  at a time) on a device that holds n addresses, seconds:"
	printf '  %-34s %9s %9s %12s\n' "" base series series/base
	for n in "${small[@]}"; do
		for l in host one; do
			x=$(cell "$r/base" "small n" secs "$n" "$l")
			y=$(cell "$r/series" "small n" secs "$n" "$l")
			what="n = $n, /32s (adds 10.1.0.1/32)"
			[ "$l" = host ] || what="n = $n, one /8 (adds 10.0.0.250/8)"
			printf '  %-34s %9s %9s %12s\n' "$what" "${x:--}" \
				"${y:--}" "$(growth "$y" "$x")"
		done
	done
}

# The Markdown (code block) and plain figures, by name.
figure() {
	case $1 in
	flush-cost) fig_flush_cost ;;
	flag-vs-secfirst) fig_flag_vs_secfirst ;;
	plain-vs-base) fig_plain_vs_base ;;
	walk-stop) fig_walk_stop ;;
	filtered) fig_filtered ;;
	md-flush-filtered) fig_md_filtered ;;
	md-demux) fig_md_raw "$DEMUX_RUN" ;;
	md-ring) fig_md_raw "$RING_RUN" ;;
	packet-netns) fig_packet_netns ;;
	md-packet-netns) fig_md_pnetns "$PNETNS_RUN" series ;;
	md-packet-netns-old) fig_md_pnetns "$PNETNS_RUN" 6.12 ;;
	md-flush-series) fig_md_flush_series ;;
	md-flush-plain) fig_md_flush_both "$PLAIN_RUN" ;;
	flush6) fig_flush6 ;;
	md-flush6) fig_md_raw "$FLUSH6_RUN" ;;
	add-host) fig_add ;;
	*) die "no figure $1" ;;
	esac
}

# fig_runs FIG: the runs a plain figure comes from, as cite takes them.
fig_runs() {
	case $1 in
	flush-cost | flag-vs-secfirst) echo "$FLUSH_RUN" ;;
	plain-vs-base | walk-stop) echo "$PLAIN_RUN" ;;
	filtered) echo "$FILT_RUN" ;;
	flush6) echo "$FLUSH6_RUN" ;;
	add-host) echo "$ADD_RUN" ;;
	packet-netns) echo "$PNETNS_RUN" ;;
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

# The figure policy (the allowlist's format: its header).
figures() {
	perl - "$TOP" "$ALLOW" "$SRC" "$check" "$@" <<'EOF'
# figures TOP ALLOW KSRC CHECK FILE[:COVERED]...: every number in the
# prose of FILE (a patch's message or cover letter, a Markdown file
# outside its generated blocks) is in a line of COVERED (a generated
# figure pasted in the patch), in a named class below, or in a fragment
# of the allowlist ALLOW that the check verifies.  Prints each number
# that is none of these (and why a class refused it), each allowlist
# entry that fails, a WARNING per pending entry; exits 1 on any failure.
use strict;
use warnings;

my ($top, $allow, $ksrc, $check, @args) = @ARGV;
my $bad = 0;
my $M = "\x01";			# what a masked character becomes

sub fail { print "$_[0]\n"; $bad = 1 }
sub mask { my $s = shift; $s =~ s/./$M/gs; $s }

# The series folders and their patches, for the classes that name them.
my %series;			# folder => [ its patches but the cover letter ]
for my $d (glob "$top/patches/*/") {
	my ($name) = $d =~ m{([^/]+)/$};
	$series{$name} = [ grep { !/0000-cover-letter/ } glob "$d*.patch" ];
}
my %by_number = map { /^(\d+)-/ ? ($1 => $_) : () } keys %series;
my $max_patches = 0;
for (values %series) { $max_patches = @$_ if @$_ > $max_patches }

my $ctx;			# the file at hand: kind, folder, cover

# What ends a number (not more of it), what makes it a figure.
my $END = qr/(?!\w|[.,]\d)/;
my $UNIT = qr/(?:s|ms|us|ns|secs?|seconds?|min|minutes?|h|hours?|%|[kMG]?pps|tps|[kMG]i?B|bytes|times|x)\b/;

# patch_ref REF: "" when REF ("patch 2.3", "patches 1 and 2", "series 3",
# "iproute2 patch 4") names patches that exist, else why not.  A bare
# patch number counts in the series of the patch at hand (in Markdown:
# in any series).
sub patch_ref {
	my ($ref) = @_;
	my $ip = $ref =~ s/^iproute2 //;
	my ($what, $nums) = $ref =~ /^(\S+)\s+(.*)$/s;
	for my $r ($nums =~ /(\d+(?:\.\d+)?)/g) {
		if ($what =~ /^series/i) {
			return "no series $r" unless $by_number{$r};
		} elsif ($r =~ /^(\d+)\.(\d+)$/) {
			my $f = $by_number{$1} or return "no series $1";
			return "no patch $r" if $2 < 1 || $2 > @{ $series{$f} };
		} else {
			my $max = $ip ? @{ $series{iproute2} } :
			    $ctx->{folder} ? @{ $series{ $ctx->{folder} } } : $max_patches;
			return "no patch $r" if $r < 1 || $r > $max;
		}
	}
	return "";
}

# The named classes, in order: [ name, regex, check ].  Each masks what
# it matches; a check returns "" when the match is what it claims, else
# why not (the match is then left, and reported).  None matches a number
# with a unit, a decimal fraction or a ratio (x16).
my @classes = (
	# URLs and mail addresses
	[ url => qr{https?://[^\s)>`"]+} ],
	[ mail => qr{<[^<>\s]+@[^<>\s]+>} ],
	# a run id or dated name (20261204-mutant-select), a date
	[ date => qr{\b20\d\d(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01])-[\w.-]*\w} ],
	[ date => qr{\b20\d\d-(?:0[1-9]|1[0-2])-(?:[0-2]\d|3[01])\b} ],
	# commit and patch ids: 7 to 40 hex digits, a letter among them
	[ commit => qr{\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b} ],
	# IPv4 addresses and prefixes, IPv6 addresses, prefix lengths (/24s)
	[ address => qr{(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?$END} ],
	[ address => qr{(?<![\w:])[0-9a-f]{0,4}(?::[0-9a-f]{0,4})*::[0-9a-f]{0,4}(?::[0-9a-f]{1,4})*(?:/\d{1,3})?(?![\w:])} ],
	[ address => qr{(?<![\w.)])/(?:12[0-8]|1[01]\d|\d\d?)s?\b} ],
	# versions: v3.6, three or more parts (7.3.4, 7.3.4-1~bpo13+1),
	# after a name (iproute2-6.1, linux-source-7.x); two bare parts
	# (6.12) are a decimal to this check
	[ version => qr{(?<![\w.])v\d+(?:\.\d+)*$END(?!\s*$UNIT)} ],
	[ version => qr{(?<![\w.])\d+\.\d+\.\d+(?:[-~+][\w~+.-]*\w)?$END(?!\s*$UNIT)} ],
	[ version => qr{(?<=[A-Za-z0-9]-)\d+(?:\.(?:\d+|x))+$END(?!\s*$UNIT)} ],
	# patch and series references and folders, checked against patches/
	[ patch => qr{\[PATCH [\w-]+(?: v\d+)? (\d+)/(\d+)\]},
	  sub {
		my (undef, $n, $m) = @_;
		return "no series of $m patches" unless grep { @$_ == $m } values %series;
		return $n <= $m ? "" : "patch $n of $m";
	  } ],
	[ patch => qr{\b(?:iproute2 )?(?:[Pp]atch(?:es)?|[Ss]eries)\s+\d+(?:\.\d+)?(?:(?:,\s*|\s+and\s+|\s+or\s+)\d+(?:\.\d+)?)*$END(?!\s*$UNIT)},
	  \&patch_ref ],
	[ patch => qr{\b\d+-[a-z][\w-]*\w(?=/)},
	  sub { $series{ $_[0] } ? "" : "no series folder $_[0]" } ],
	# values of boolean options and sysctls (promote_secondaries=0, W=1,
	# promote_secondaries 0 and 1), the packet socket protocol 0,
	# single-digit options (ip -4, git am -3), man page sections
	[ option => qr{(?<=\w=)[01]$END(?!\s*$UNIT)} ],
	[ option => qr{\b[a-z]+_[a-z_]+ [01](?:(?:,| and| or) [01])*$END(?!\s*$UNIT)} ],
	[ option => qr{\b[Pp]rotocol[ -]0$END(?!\s*$UNIT)} ],
	[ option => qr{(?:\bip|\bam|\bwith|\bwithout)\s+-[346]$END} ],
	[ option => qr{\b[a-z]+\([2378]\)} ],
	# identifiers that contain digits (IPv4, x86_64, E2BIG, kube-ipvs0,
	# ipv4.conf, -m32), not a ratio (x16, x2.5); hex constants
	[ identifier => qr{(?<!\w)(?!x\d[\d.]*(?!\w))[A-Za-z_]\w*\d\w*} ],
	[ identifier => qr{\b0x[0-9a-fA-F]+\b} ],
	# names: the 9p file protocol, word sizes, the init process
	[ name => qr{(?<!\w)9p\b|\b(?:32|64)-bit\b|\bPID 1$END} ],
	# algebra in the sizes N and S: N(N-1)/2, S + 1
	[ formula => qr{\b[NS]\([NS] ?- ?1\)/2\b|\b[NS] ?[-+] ?1$END(?!\s*$UNIT)} ],
	# a bare 0 or 1 (a value written to a boolean knob, "exactly 0 per
	# packet"): it says no more than "no" or "one", which the check
	# cannot see either; not with a unit or a decimal, not as a result
	# ("1 of", "0 failed")
	[ boolean => qr{(?<![\w.,~^/-])[01](?!\w|[.,]\d|\s*$UNIT|\s+(?:of|passed|failed|skipped|errors?|warnings?|splats?|drops?|leaks?)\b)} ],
	# a file:line reference
	[ fileline => qr{\b[\w/.-]+\.(?:c|h|sh|md|rst|yaml|awk|patch):\d+\b} ],
);

# mask_classes TEXT WHY: TEXT with every class match masked; a match
# whose check fails is left, its reason pushed on @WHY.
sub mask_classes {
	my ($t, $why) = @_;
	for my $c (@classes) {
		my ($name, $re, $chk) = @$c;
		$t =~ s{$re}{
			my ($m, @g) = ($&, map { defined $_ ? $_ : '' } $1, $2);
			my $e = $chk ? $chk->($m, @g) : '';
			push @$why, $e if $e;
			$e ? $m : mask($m)
		}ge;
	}
	return $t;
}

# A line of a commit message that is a command of an example: two or
# more spaces, then a shell prompt.  Its bare integers (no unit, no
# decimal, no ~) are the command's arguments.
sub mask_command {
	my ($t) = @_;
	return $t unless $ctx->{kind} eq 'patch' && $t =~ /^ {2,}[#\$>] /;
	$t =~ s{(?<![\w.,~])\d+(?![\w.,]|\s*$UNIT)}{mask($&)}ge;
	return $t;
}

# Figures in words: a time (about a second, within two minutes) or a
# ratio (ten times faster).
my $WORD = qr/(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|a hundred|hundreds of|a thousand|thousands of|a few|several|half an?)/i;
my $SPELLED = qr/\b(?:(?:about|around|roughly|nearly|almost|under|over|within|less than|more than|takes?|took|in)\s+$WORD\s+(?:(?:milli|micro|nano)?seconds?|minutes?|hours?)|$WORD\s+times\s+(?:faster|slower|more|less|as))\b/i;

# numbers TEXT: its numbers, as a verification prints them (no
# thousands separator), and its figures in words.
sub numbers {
	my ($t) = @_;
	return ((map { s/,//gr } $t =~ /(\d+(?:[.,]\d+)*)/g), $t =~ /($SPELLED)/g);
}

# Lines of a patch that name no figure whatever their numbers: the mbox
# header, trailers.
my $HEADER = qr/^(?:From [0-9a-f]{40} Mon Sep 17 00:00:00 2001|From: .*|Date: .*| <[^<>\s]+@[^<>\s]+>)$/;
my $TRAILER = qr/^(?:Fixes: [0-9a-f]{12,40} \(".*"\)|(?:Signed-off-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Suggested-by|Co-developed-by): [^<>]+ <[^<>\s]+>|base-commit: [0-9a-f]{40}|prerequisite-patch-id: [0-9a-f]{40}|change-id: \d{8}-[\w-]+)$/;

# The diffstat of a cover letter against the diffs of its series: per
# file the lines each patch adds and deletes, summed, how many patches
# touch it, its mode when created.  The diffstat is of the net diff:
# where a patch changes lines an earlier one added, its counts are
# below these sums, by as many insertions as deletions.
my %stat;			# folder => { file => [add, del, patches, mode] }
sub series_stat {
	my ($f) = @_;
	return $stat{$f} if $stat{$f};
	my %s;
	for my $p (@{ $series{$f} }) {
		open my $fh, '<', $p or die "$p: $!";
		my ($file, $ol, $nl) = ('', 0, 0);
		while (<$fh>) {
			if ($ol > 0 || $nl > 0) {
				if (/^ /) { $ol--; $nl-- }
				elsif (/^-/) { $ol--; $s{$file}[1]++ }
				elsif (/^\+/) { $nl--; $s{$file}[0]++ }
			} elsif (m{^diff --git a/\S+ b/(\S+)}) {
				$file = $1;
				$s{$file} ||= [0, 0, 0, ''];
				$s{$file}[2]++;
			} elsif (/^new file mode (\d+)/) {
				$s{$file}[3] = $1;
			} elsif (/^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/) {
				($ol, $nl) = (defined $1 ? $1 : 1, defined $2 ? $2 : 1);
			}
		}
	}
	return $stat{$f} = \%s;
}

# diffstat LINE: "ok" for a line of a cover letter's diffstat or
# shortlog that agrees with its series, why not for one that does not,
# "" for any other line.
sub diffstat {
	my ($l) = @_;
	return '' unless $ctx->{cover};
	my $s = series_stat($ctx->{folder});
	if ($l =~ m{^ (\S+)\s+\|\s+(\d+) [+-]*$}) {
		my ($path, $n) = ($1, $2);
		my @m = grep { $_ eq $path || ($path =~ m{^\.\.\.(/.*)$} && substr($_, -length $1) eq $1) } keys %$s;
		return "diffstat: $path is not one file of the series" unless @m == 1;
		my ($a, $d, $k) = @{ $s->{ $m[0] } };
		$ctx->{stat} += $n;
		return 'ok' if $k == 1 ? $n == $a + $d : $n <= $a + $d && ($a + $d - $n) % 2 == 0;
		return "diffstat: $path: $n lines, the patches change " . ($a + $d);
	}
	if ($l =~ /^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?$/) {
		my ($n, $a, $d) = ($1, $2 || 0, $3 || 0);
		my ($ta, $td) = (0, 0);
		for (values %$s) { $ta += $_->[0]; $td += $_->[1] }
		my $tn = keys %$s;
		my $sum = $ctx->{stat} || 0;
		return 'ok' if $n == $tn && $a - $d == $ta - $td && $a <= $ta && $d <= $td &&
		    $a + $d == $sum;
		return "diffstat: $n files, +$a -$d (the lines above: $sum); the patches: $tn files, +$ta -$td";
	}
	if ($l =~ m{^ create mode (\d+) (\S+)$}) {
		return 'ok' if $s->{$2} && $s->{$2}[3] eq $1;
		return "diffstat: $2 is not created with mode $1";
	}
	if ($l =~ /^.+ \((\d+)\):$/) {
		my $n = @{ $series{ $ctx->{folder} } };
		return $1 == $n ? 'ok' : "shortlog: $n patches, not $1";
	}
	return '';
}

# The allowlist: CLASS | FILES | FRAGMENT | VERIFICATION, one a line.
my @allow;
open my $afh, '<', "$top/$allow" or die "$allow: $!";
while (<$afh>) {
	chomp;
	next if /^\s*(?:#|$)/;
	my $where = "$allow:$.";
	my @f = split / \| /, $_, 4;
	if (@f != 4 || $f[0] !~ /^(?:kernel|tree|run|source|pending)$/) {
		fail("$where: not CLASS | FILES | FRAGMENT | VERIFICATION");
		next;
	}
	my @files = grep { -f "$top/$_" } map { s{^\Q$top\E/}{}r } glob "$top/$f[1]";
	if (!@files) {
		fail("$where: $f[1] names no file");
	} elsif ($f[2] !~ /[A-Za-z]{3}/) {
		fail("$where: \"$f[2]\": a fragment needs a word around its number");
	} elsif ($f[0] eq 'pending' && grep { !m{^patches/} } @files) {
		fail("$where: pending is for patches/ only (reword the rest)");
	} else {
		push @allow, { class => $f[0], files => { map { $_ => 1 } @files },
		    frag => $f[2], verify => $f[3], where => "$where: \"$f[2]\"" };
	}
}
close $afh;

# The files.
for my $arg (@args) {
	my ($file, $covf) = split /:/, $arg, 2;
	my %covered;
	if ($covf) {
		open my $c, '<', $covf or die "$covf: $!";
		chomp(my @l = <$c>);
		@covered{@l} = ();
	}
	my @entries = grep { $_->{files}{$file} } @allow;
	$ctx = { kind => $file =~ /\.patch$/ ? 'patch' : 'md' };
	@$ctx{qw(folder cover)} = ($1, $2 eq '0000') if $file =~ m{^patches/([^/]+)/(\d+)-};
	my ($header, $gen, $prev) = (1, 0, '');
	open my $fh, '<', "$top/$file" or die "$file: $!";
	while (my $l = <$fh>) {
		chomp $l;
		my $before = $prev;
		$prev = $l;
		if ($ctx->{kind} eq 'patch') {
			last if $l eq '---' || $l =~ /^diff --git /;
			$header = 0 if $l eq '';
			next if ($header && $l =~ $HEADER) || $l =~ $TRAILER;
		} else {
			$gen = 1 if $l =~ /^<!-- results: /;
			$gen = 0, next if $l =~ /^<!-- end results -->/;
			next if $gen;
		}
		next unless $l =~ /\d/ || $l =~ $SPELLED;
		next if exists $covered{$l};
		my $ds = diffstat($l);
		next if $ds eq 'ok';
		fail("$file:$.: $ds"), next if $ds;
		my $t = $l;
		for my $e (@entries) {
			my $f = $e->{frag};
			my $k = $t =~ s{\Q$f\E}{mask($f)}ge or next;
			$e->{used} += $k;
			print "WARNING: $file:$.: pending, to be reworded in the patch ($e->{verify}): \"$f\"\n"
			    if $e->{class} eq 'pending';
		}
		$t = mask_command($t);
		$t =~ s{^\s*\d+\. }{mask($&)}e if $ctx->{kind} eq 'md';
		# With the last word of the line before, for a reference broken
		# over two lines ("series\n3"), cut off again after masking.
		my $pre = $before =~ /(\S+)\s*$/ ? "$1 " : '';
		my @why;
		$t = substr(mask_classes($pre . $t, \@why), length $pre);
		my @left = ($t =~ /([^\s$M]*\d[^\s$M]*)/g, map { "\"$_\"" } $t =~ /($SPELLED)/g);
		next unless @left;
		fail("$file:$.: " . join(', ', @left) . (@why ? " (@why)" : '') .
		    ": no generated figure, named class or entry of $allow covers it");
		print "  | $l\n";
	}
	close $fh;
}

# The allowlist entries: each is found where it says, and verified.
for my $e (@allow) {
	my $w = $e->{where};
	my $c = $e->{class};
	if (!$e->{used}) {
		fail("$w: not found in its files (a number changed?)");
		next;
	}
	my @nums = numbers(mask_classes($e->{frag}, []));
	if (!@nums) {
		fail("$w: no number left in it for an entry to cover");
		next;
	}
	next if $c eq 'pending';
	if ($c eq 'source') {
		fail("$w: a source entry cites no URL") unless $e->{verify} =~ m{^https?://\S+$};
		next;
	}
	my $dir = $top;
	if ($c eq 'kernel') {
		$dir = $ksrc;
		if (!-f "$ksrc/Makefile" || !-d "$ksrc/net") {
			my $msg = "$w: no kernel tree in $ksrc to verify it in (make fetches one)";
			$check ? fail($msg) : print "WARNING: $msg\n";
			next;
		}
	}
	if ($c eq 'run' && !grep { !system('sh', '-c', 'git -C "$0" ls-files --error-unmatch -- "$1" >/dev/null 2>&1', $top, $_) }
	    $e->{verify} =~ m{(Documentation/runs/[\w.-]+/[\w.-]+)}g) {
		fail("$w: its command names no committed file under Documentation/runs/");
		next;
	}
	open my $p, '-|', 'bash', '-c', 'set -o pipefail; cd "$1" && eval "$2" 2>/dev/null',
	    'verify', $dir, $e->{verify} or die "bash: $!";
	my @got = map { s/,//gr } split ' ', join '', <$p>;
	if (!close $p) {
		fail("$w: its verification failed: $e->{verify}");
	} elsif ("@nums" ne "@got") {
		fail("$w: says @nums, the $c says " . (@got ? "@got" : "nothing") . " ($e->{verify})");
	}
}
exit $bad;
EOF
}

# message FILE: a patch's message and cover letter text (before the diff).
message() {
	awk '/^---$/ || /^diff --git/ {exit} {print}' "$1"
}

# kernel_code TREE|"" [ip [ONLY]]: the code a benchmark runs: the diff of
# every file outside tools/testing/, Documentation/ and man/, per patch
# (messages, cover letters, selftests and docs left out), of the kernel
# series and, with "ip", of the iproute2 companion; from the patches/ tree
# object TREE that a run's meta names, or ("") from patches/ in the work
# tree, there only of the series folders that the tree object ONLY has.
kernel_code() {
	local f
	if [ -n "$1" ]; then
		git -C "$TOP" ls-tree -r --name-only "$1" | sed "s|^|$1:|"
	else
		(cd "$TOP/patches" && ls -- */*.patch) |
			if [ -n "${3:-}" ]; then
				awk -F/ 'NR == FNR { only[$0]; next } $1 in only' \
					<(git -C "$TOP" ls-tree --name-only "$3") -
			else
				cat
			fi
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
# A run holds for the series it applied: a series folder added to
# patches/ after it (a later series, sent after those it measured) does
# not make it stale; a change to any series it applied does, and so does
# a series it applied that is gone.
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
	kernel_code "" "${2:-}" "$t" >"$tmp/posted"
	if ! cmp -s "$tmp/measured" "$tmp/posted"; then
		echo "run $1 measured other kernel code than patches/ (tree $t):"
		{ diff -u "$tmp/measured" "$tmp/posted" || true; } | sed -n "3,20p"
		echo "  (re-run the benchmark, commit its run, set its id in scripts/results.sh)"
		return 1
	fi
}

# What else a run's figures depend on: the kernel config fragments its
# kernel was built with (scripts/loop/build.sh, scripts/bench/bench.sh)
# and the sources of the benchmark helpers that measured them (per run,
# same_inputs' HELPER arguments).  The drivers (bench-*.sh) are left out:
# their comments and reports change without changing a figure.
MEASURE_INPUTS=(scripts/vm/vm.config selftests/config scripts/bench/bench.config)

# same_inputs RUN HELPER...: fail unless the run was measured from a clean
# tree (bench.sh marks a meta whose patches/ or scripts/ had local
# changes) whose MEASURE_INPUTS and helpers (their sources under scripts/bench/) are
# those of this tree.
same_inputs() {
	local rev h inputs=("${MEASURE_INPUTS[@]}")
	need "$1"
	for h in "${@:2}"; do
		inputs+=("scripts/bench/$h.c")
	done
	rev=$(meta "$1" repository)
	if [[ $rev == *modified* ]]; then
		echo "run $1 was measured from a tree with local changes: $rev"
		return 1
	fi
	git -C "$TOP" cat-file -e "$rev^{commit}" 2>/dev/null ||
		die "run $1: commit $rev is not in this repository"
	if ! git -C "$TOP" diff --quiet "$rev" -- "${inputs[@]}"; then
		echo "run $1 was built or driven by other config fragments or helpers than this tree's:"
		git -C "$TOP" diff --stat "$rev" -- "${inputs[@]}" | sed 's/^/ /'
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
for r in "$FLUSH_RUN" "$DEMUX_RUN" "$RING_RUN" "$PNETNS_RUN" "$ADD_RUN" \
	"$PLAIN_RUN"; do
	[ -z "$r" ] || same_code "$r" || rc=1
done
# (the IPv6 run has the companion's ip only if its command names one)
for r in "$FILT_RUN" "$FLUSH6_RUN"; do
	[ -n "$r" ] || continue
	if grep -q 'BENCH_IP_PATCHED=' "$RUNS/$r/meta"; then
		same_code "$r" ip || rc=1
	else
		same_code "$r" || rc=1
	fi
done
# Each run with the helpers its figures come from (bench-flush builds
# both flushers; the IPv4 figures use flush_bench, the IPv6 ones
# flush6_bench).
for r in "$FLUSH_RUN flush_bench" "$PLAIN_RUN flush_bench" \
	"$DEMUX_RUN edmx_bench" "$RING_RUN ring_bench" "$FILT_RUN flush_bench" \
	"$PNETNS_RUN pnetns_bench" \
	"$FLUSH6_RUN flush6_bench" "$ADD_RUN flush_bench churn_bench"; do
	# shellcheck disable=SC2086 # the run and its helpers
	[ -z "${r%% *}" ] || same_inputs $r || rc=1
done

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

# Patches: every figure in its patch verbatim.
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
done

# Every number of the prose: in a generated figure (Markdown blocks; in a
# patch, the lines of the figures FIGURES_IN pastes in it), in a named
# class, or verified through the allowlist.
args=("${MARKDOWN[@]}")
i=0
for p in patches/*/*.patch; do
	i=$((i + 1))
	printf '%s' "${covered[$p]:-}" >"$tmp/cov.$i"
	args+=("$p:$tmp/cov.$i")
done
figures "${args[@]}" || rc=1
exit $rc
