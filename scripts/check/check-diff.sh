#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-diff`: address deletion on the series kernel against the
# base kernel.  IPv4: patch 2 promises that the routes left do not change.
# IPv6: its bulk delete (one RTM_DELADDR with NLM_F_BULK on the series)
# must leave what deleting the addresses one by one in dump order leaves
# (the base kernel, which has no bulk delete).  IPv4 adds: series 5
# promises that nothing visible changes (the order of the addresses, which
# becomes a secondary, errors, routes).
#
# scripts/check/diff-scenarios.sh generates DIFF_SCENARIOS (300) IPv4
# scenarios and as many IPv6 and IPv4 add ones from SEED (printed; random
# if unset) into the run directory once; the same file runs in one VM
# boot per kernel, each scenario in a netns of its own, and after every
# request the guest dumps the addresses (in kernel order) and the routes
# of the scenario's family.  The series kernel's states must equal the
# base kernel's, each layer's scenarios a result of their own.  MUTANT=1
# also builds the series with the mutations of $MUTATIONS
# ($CACHE/build-diffmut), whose states must differ in the IPv4 and IPv6
# layers, and with $MUTATION_ADD ($CACHE/build-diffadd), whose states
# must differ in the add layer.  DIFF_LAYERS="4 6 a" (default: all)
# runs those layers only (and of the mutants, those that they need).
# Output: KTAP "ok N" / "not ok N" lines (a difference comes with the
# scenario's commands and the diff; all of them in the run directory),
# then "N passed, N failed".
# Not -e: a kernel that fails is a result line; the summary is always printed.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

SEED=${SEED:-$RANDOM}
N=${DIFF_SCENARIOS:-300}
LAYERS=" ${DIFF_LAYERS:-4 6 a} "
# layer L: whether layer L (4, 6 or a) runs; n_of L: its scenario count.
layer() { [[ $LAYERS == *" $1 "* ]]; }
n_of() { if layer "$1"; then echo "$N"; else echo 0; fi; }
N4=$(n_of 4) N6=$(n_of 6) NA=$(n_of a)
# The mutant's mutations (apply.sh EXTRA_PATCHES): one the IPv4 scenarios
# must see, one the IPv6 ones must.
MUTATIONS="$TOP/scripts/check/mutations/fib-going-subnet-ignores-shared-local.patch
$TOP/scripts/check/mutations/separate/bulk6-every-address-last.patch"
# The add layer's: a new primary behind every primary, whatever its scope.
MUTATION_ADD=$TOP/scripts/check/mutations/separate/add-primary-behind-all.patch
S=$TOP/scripts
out=$(new_run diff)

finish() {
	log "total: $(($(date +%s) - _t0))s, results in $out"
	echo "$((KTAP_N - KTAP_FAILED)) passed, $KTAP_FAILED failed"
	[ "$KTAP_FAILED" -eq 0 ]
	exit
}

"$S/check/diff-scenarios.sh" gen "$SEED" "$N4" "$N6" "$NA" >"$out/scenarios"
log "seed $SEED, $N4 IPv4, $N6 IPv6 and $NA IPv4 add scenarios in $out/scenarios (again: make check-diff SEED=$SEED DIFF_SCENARIOS=$N${DIFF_LAYERS:+ DIFF_LAYERS=\"$DIFF_LAYERS\"})"

# The variants first, the series last: $SRC ends on the series, whose
# uapi headers selftests/ifa_flusher is built against.
kernels=(base)
variant_kernel base SKIP_SERIES=1 || { ktap_result 1 "base kernel builds"; finish; }
if [ "${MUTANT:-0}" = 1 ] && { layer 4 || layer 6; }; then
	variant_kernel diffmut EXTRA_PATCHES="$MUTATIONS" ||
		{ ktap_result 1 "mutant kernel builds"; finish; }
	kernels+=(diffmut)
fi
if [ "${MUTANT:-0}" = 1 ] && layer a; then
	variant_kernel diffadd EXTRA_PATCHES="$MUTATION_ADD" ||
		{ ktap_result 1 "add mutant kernel builds"; finish; }
	kernels+=(diffadd)
fi
BUILD=$CACHE/build
kernels+=(series)
kernel_up_to_date || { ktap_result 1 "series kernel builds"; finish; }
step "selftests (ifa_flusher)" build_selftests || { ktap_result 1 "selftests build"; finish; }

for k in "${kernels[@]}"; do
	b=$CACHE/build-$k
	[ "$k" != series ] || b=$CACHE/build
	mkdir -p "$out/$k"
	t=$(date +%s)
	VM_OUT=$out/$k KERNEL=$(kernel_image "$b") step "run ($k)" \
		"$S/vm/vm-exec.sh" "$S/check/diff-scenarios.sh" run "$out/scenarios" /run/out/states >&2
	rc=$?
	n=$(grep -c '^### scenario ' "$out/$k/states" 2>/dev/null)
	n6=$(grep -c '^### scenario6 ' "$out/$k/states" 2>/dev/null)
	na=$(grep -c '^### scenarioa ' "$out/$k/states" 2>/dev/null)
	states=$(grep -c '^= state' "$out/$k/states" 2>/dev/null)
	[ "$rc" = 0 ] && [ "$n" = "$N4" ] && [ "$n6" = "$N6" ] && [ "$na" = "$NA" ]
	ktap_result $? "$k: $n of $N4 IPv4, $n6 of $N6 IPv6 and $na of $NA IPv4 add scenarios, $states states in $(($(date +%s) - t)) s ($out/$k)"
done

# scenario FILE NAME K: the lines of scenario K of FILE (scenarios or
# states); NAME: scenario (IPv4), scenario6 (IPv6) or scenarioa (adds).
scenario() {
	awk -v n="$2" -v k="$3" '/^#+ scenario[6a]? / { on = ($2 == n && $3 == k) } on' "$1"
}

# compare KERNEL WANT LAYER: KERNEL's states of the LAYER's (4, 6 or a:
# IPv4 adds) scenarios against the base's; WANT is "same" or "differ".
# Every differing scenario, its commands and the diff, go to
# $out/diff-KERNEL-ipvLAYER; the first one is shown.
compare() {
	local k=$1 want=$2 f=$3 ks d=$out/diff-$1-ipv$3 first states name=scenario what
	[ "$f" != 6 ] || name=scenario6
	[ "$f" != a ] || name=scenarioa
	what="IPv$f"
	[ "$f" != a ] || what="IPv4 add"
	states=$(awk -v n="$name" '/^### scenario[6a]? / { on = ($2 == n) }
		on && /^= state/ { c++ } END { print c + 0 }' "$out/base/states")
	mapfile -t ks < <(awk -v n="$name" '/^### scenario[6a]? / { k = ($2 == n) ? $3 : "" }
		k == "" { next }
		FNR == NR { a[k] = a[k] $0 "\n"; next } { b[k] = b[k] $0 "\n" }
		END { for (k in a) if (a[k] != b[k]) print k; for (k in b) if (!(k in a)) print k }' \
		"$out/base/states" "$out/$k/states" | sort -n)
	for s in "${ks[@]}"; do
		echo "$what scenario $s (SEED=$SEED DIFF_SCENARIOS=$N), commands:"
		scenario "$out/scenarios" "$name" "$s"
		echo "diff base $k:"
		diff -u --label base --label "$k" <(scenario "$out/base/states" "$name" "$s") \
			<(scenario "$out/$k/states" "$name" "$s")
	done >"$d"
	first=${ks[0]:-}
	if [ "$want" = same ]; then
		ktap_result "${#ks[@]}" "$k = base in $N $what scenarios, $states states${first:+: differs in ${#ks[@]} (all in $d)}"
		[ -z "$first" ] || awk -v n=2 '/^IPv.( add)? scenario / && !--n { exit } { print "# " $0 }' "$d"
	else
		[ -n "$first" ]
		ktap_result $? "$k differs from base in $what${first:+: in ${#ks[@]} of $N scenarios (first: $first; all in $d)}"
	fi
}

if [ "$KTAP_FAILED" -eq 0 ]; then
	for l in 4 6 a; do
		layer "$l" || continue
		compare series same "$l"
		[ "${MUTANT:-0}" = 1 ] || continue
		if [ "$l" = a ]; then
			compare diffadd differ a
		else
			compare diffmut differ "$l"
		fi
	done
fi
finish
