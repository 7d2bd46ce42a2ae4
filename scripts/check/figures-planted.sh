#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The figure policy of `scripts/results.sh --check` against planted
# figures: copies the repository (HEAD's history and the work tree's
# tracked files) into a scratch directory, checks that the copy passes,
# then plants one change at a time in a fresh copy and runs the check
# there.  Prints each plant and the lines of the check's output it
# caused; fails when a plant passes the check (or the copy does not).
# Nothing of this checkout and of the kernel tree ($SRC) is written: a
# changed kernel constant is planted in a scratch tree of symlinks to
# $SRC with one file copied.  Output committed under
# Documentation/runs/<date>-figures-planted/.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git clone -q --shared --no-checkout "$TOP" "$scratch/pristine"
git -C "$scratch/pristine" checkout -q --detach "$(git -C "$TOP" rev-parse HEAD)"
(cd "$TOP" && git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf -) |
	tar -C "$scratch/pristine" -xf -

# check [CACHE]: the check in the copy at hand, its exit status in $rc.
check() {
	rc=0
	(cd "$scratch/work" && CACHE=${1:-$CACHE} scripts/results.sh --check) \
		>"$scratch/out" 2>&1 || rc=$?
}

echo "# scripts/check/figures-planted.sh in a scratch copy of commit" \
	"$(git -C "$TOP" rev-parse --short HEAD)$(git -C "$TOP" diff --quiet HEAD || echo ' (modified)')" \
	"($(date -u '+%Y-%m-%d %H:%M')): each plant in a fresh copy, then"
echo "# scripts/results.sh --check; below each, the lines of the check's output"
echo "# that the plant added (exit 1 = the check fails)."
cp -a "$scratch/pristine" "$scratch/work"
check
cp "$scratch/out" "$scratch/base"
echo "unplanted copy: exit $rc, $(grep -c '^WARNING' "$scratch/base") pending warnings"
[ "$rc" -eq 0 ] || { cat "$scratch/base"; exit 1; }

n=0
missed=0
# plant FILE WHAT SED [CACHE]: SED applied to FILE in a fresh copy (no
# FILE: "-"), the check run with CACHE.
plant() {
	local file=$1 what=$2 expr=$3
	n=$((n + 1))
	rm -rf "$scratch/work"
	cp -a "$scratch/pristine" "$scratch/work"
	[ "$file" = - ] || sed -i -e "$expr" "$scratch/work/$file"
	if [ "$file" != - ] && cmp -s "$scratch/pristine/$file" "$scratch/work/$file"; then
		echo "planted $n: $file: $what: DID NOT APPLY"
		missed=$((missed + 1))
		return
	fi
	check "${4:-}"
	echo "planted $n: $file: $what: exit $rc"
	{ diff "$scratch/base" "$scratch/out" || true; } | sed -n 's/^> /  /p'
	[ "$rc" -ne 0 ] || missed=$((missed + 1))
}

C2=patches/2-net-next-ifa-flush/0000-cover-letter.patch
C3=patches/3-net-next-packet-ring/0000-cover-letter.patch
P11=$(cd "$scratch/pristine" && echo patches/1-net-autojoin/0001-*.patch)
P23=$(cd "$scratch/pristine" && echo patches/2-net-next-ifa-flush/0004-*.patch)
P25=$(cd "$scratch/pristine" && echo patches/2-net-next-ifa-flush/0006-*.patch)
R=Documentation/results.md

# The plants of issue 33, item 1.
# (series 3's cover letter no longer quotes the two withdrawn counts:
# planted back, each as it was)
plant "$C3" '"236" back' 's/in each of N namespaces/in each of 236 namespaces/'
plant "$C3" '"55,696" back' 's/reaches all of them N \* N times/reaches all of them 55,696 times/'
plant "$C2" '"21 ... 155" added' 's/linear while subnets are few and large;/linear while subnets are few and large (21 subnets: 155 walks);/'
plant "$P25" '"228 routes" added' 's/the same addresses and routes (all tables/the same addresses and 228 routes (all tables/'
plant "$P23" '"~20,000" added' 's/^cond_resched() between addresses/cond_resched() (~20,000 addresses a second) between addresses/'
plant README.md '"612.5 s" added' 's/(idempotent), print every step/(idempotent; a cold run takes 612.5 s), print every step/'
plant "$P25" '"about 9 s" added' 's/say how long each runs under/say (about 9 s) how long each runs under/'
plant "$R" '"2,506 states" added' 's/^The check targets pass or fail;/check-diff compared 2,506 states.  The check targets pass or fail;/'
plant "$R" '"7 passed" added' 's/^The check targets pass or fail;/check-debug: 7 passed.  The check targets pass or fail;/'
# Numbers in code spans.
# shellcheck disable=SC2016 # backquotes, not an expansion
plant "$R" 'a number in a code span: `BENCH_IP_FILT_MAX=40000`' 's/above `BENCH_IP_FILT_MAX` ("-")/above `BENCH_IP_FILT_MAX=40000`/'
# shellcheck disable=SC2016
plant "$R" 'a figure in a code span: `0.5 s`' 's/one boot$/one boot (`0.5 s`)/'
# Allowlisted numbers, kernel constants, tree counts, runs.
plant "$P11" 'a number of an allowlist fragment: below 68. -> below 64.' 's/below 68\./below 64./'
plant patches/1-net-autojoin/0000-cover-letter.patch 'a kernel constant in prose: (20 by -> (24 by' 's/igmp_max_memberships (20 by/igmp_max_memberships (24 by/'
# A kernel tree of symlinks to $SRC, but for a copy of the file changed.
k=$scratch/kcache/src
f=include/uapi/linux/ipv6.h
mkdir -p "$k"
ln -s "$SRC"/* "$k/"
for d in include include/uapi include/uapi/linux; do
	rm "$k/$d"
	mkdir "$k/$d"
	ln -s "$SRC/$d"/* "$k/$d/"
done
rm "$k/$f"
sed 's/^#define IPV6_MIN_MTU\t1280$/#define IPV6_MIN_MTU\t1232/' "$SRC/$f" >"$k/$f"
if cmp -s "$SRC/$f" "$k/$f"; then
	echo "the kernel constant plant did not apply"
	missed=$((missed + 1))
fi
plant - 'a kernel constant changes under the prose: IPV6_MIN_MTU 1280 -> 1232 in the kernel tree' '' "$scratch/kcache"
plant selftests/ip_early_demux.c 'the tree changes under a tree-class number: a fixture variant fewer' '0,/^FIXTURE_VARIANT_ADD(early_demux, /{/^FIXTURE_VARIANT_ADD(early_demux, /d}'
plant Documentation/runs/20261204-mutants-autojoin/summary 'the run changes under a run-class number: 19 of 22 -> 18 of 22' 's/: 19 of 22 cases fail/: 18 of 22 cases fail/'
plant patches/1-net-autojoin/0000-cover-letter.patch 'a diffstat count: devinet.c N -> 1N' 's/^\( net\/ipv4\/devinet.c  *| *\)\([0-9]\)/\11\2/'
# Measurements in the forms of the classes.
plant README.md 'a ratio: x16' 's/^The cover letters and commit messages say/The cover letters (x16 faster) and commit messages say/'
plant README.md 'a decimal that looks like a version: 6.12' 's/^The cover letters and commit messages say/The cover letters (a speedup of 6.12) and commit messages say/'
plant README.md 'a figure in words: ten times faster' 's/^The cover letters and commit messages say/The cover letters (ten times faster) and commit messages say/'
plant Documentation/design.md 'an option value that is no boolean: W=1 -> W=12' 's/no new W=1 \//no new W=12 \//'
# shellcheck disable=SC2016 # a shell prompt line of the message
plant "$P11" 'a figure on an indented shell prompt line of a commit message' 's/^  # for i in \$(seq 22); do$/  # for i in $(seq 22); do   # 2.5 s/'
plant "$P23" 'a patch reference to a patch that does not exist: patch 2.7' 's/This patch does not depend on IFA_F_FLUSH\./This patch does not depend on IFA_F_FLUSH (patch 2.7)./'

echo "$n plants, $((n - missed)) failed the check, $missed passed it"
[ "$missed" -eq 0 ]
