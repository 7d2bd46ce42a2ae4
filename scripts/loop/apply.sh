#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 2: apply the kernel series (patches/N-TREE-TOPIC/NNNN-*.patch in
# order, cover letters and patches/iproute2/ excluded) with `git am -3`,
# all of them stacked, on a fresh branch
# $SERIES_BRANCH from $BASE_BRANCH in $SRC.  When neither the base nor the
# patches changed since the last run, the branch is reused as it is (git
# rewrites only the files that differ, so the kernel build stays incremental).
#
# Extra patches (e.g. a mutation used to prove that a test fails) can be
# appended with EXTRA_PATCHES="a.patch b.patch"; they are applied with
# `git apply` and left uncommitted on top of the series.  SKIP_SERIES=1
# leaves the series out (the base kernel, to show that the tests fail there);
# PATCHES_UPTO=N applies the first N patches (of all series, in order);
# SERIES_ONLY="1-net-autojoin ..." applies those series only (a series
# proven alone on the base: scripts/check/check-debug.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ -d "$SRC/.git" ] || die "no base tree in $SRC (run scripts/loop/fetch-base.sh)"
git -C "$SRC" rev-parse -q --verify "$BASE_BRANCH" >/dev/null ||
	die "$SRC has no branch $BASE_BRANCH (run scripts/loop/fetch-base.sh)"

only=()
for s in ${SERIES_ONLY:-}; do
	[ -d "$TOP/patches/$s" ] || die "SERIES_ONLY: no series patches/$s"
	only+=("$TOP/patches/$s")
done
mapfile -t patches < <(series_patches "${only[@]}")
[ "${SKIP_SERIES:-0}" = 1 ] && patches=()
# PATCHES_UPTO=N: the first N patches only (scripts/check/check-bisect.sh).
[ -z "${PATCHES_UPTO:-}" ] || patches=("${patches[@]:0:PATCHES_UPTO}")
extra=()
for p in ${EXTRA_PATCHES:-}; do
	extra+=("$(realpath "$p")")
done

stamp=$( (git -C "$SRC" rev-parse "$BASE_BRANCH"; hash_files "${patches[@]}" /dev/null;
	hash_files "${extra[@]}" /dev/null) | sha256sum | cut -d' ' -f1)
dirty=$(git -C "$SRC" status --porcelain --untracked-files=no)
[ ${#extra[@]} -eq 0 ] || dirty=
if [ "$(git -C "$SRC" symbolic-ref -q --short HEAD)" = "$SERIES_BRANCH" ] &&
	[ "$(cat "$SRC/.git/netseries-stamp" 2>/dev/null)" = "$stamp" ] && [ -z "$dirty" ]; then
	log "series unchanged: $(git -C "$SRC" rev-list --count "$BASE_BRANCH..HEAD") patches on $BASE_BRANCH"
	exit 0
fi

rm -f "$SRC/.git/netseries-stamp"
git -C "$SRC" am --abort >/dev/null 2>&1 || true
git -C "$SRC" checkout -q -f -B "$SERIES_BRANCH" "$BASE_BRANCH"
for p in "${patches[@]}"; do
	if ! git -C "$SRC" -c core.hooksPath=/dev/null am -q -3 "$p" >/dev/null 2>&1; then
		git -C "$SRC" am --abort >/dev/null 2>&1 || true
		git -C "$SRC" checkout -q -f "$BASE_BRANCH"
		die "patch does not apply: ${p#"$TOP"/}"
	fi
	log "applied ${p#"$TOP"/patches/}"
done
for p in "${extra[@]}"; do
	git -C "$SRC" apply "$p" || die "extra patch does not apply: $p"
	log "applied (uncommitted) $p"
done
echo "$stamp" >"$SRC/.git/netseries-stamp"
log "series: ${#patches[@]} patches on $(cat "$CACHE/base-version")"
