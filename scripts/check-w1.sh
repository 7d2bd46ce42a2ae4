#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-w1`: build the kernel objects the series touches with W=1 and
# C=1 (sparse) on the base and on the series, and fail on any warning the
# series adds.  The base is checked out in its own worktree ($CACHE/w1-base)
# and each side has its own build tree with the test kernel's .config
# (`make prepare`, then only the touched objects).
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

need_pkgs sparse
S=$TOP/scripts
step "apply series" "$S/apply.sh" || exit 1
mapfile -t objs < <(git -C "$SRC" diff --name-only "$BASE_BRANCH..$SERIES_BRANCH" -- '*.c' |
	grep -v '^tools/' | sed 's/\.c$/.o/')
if [ ${#objs[@]} -eq 0 ]; then
	echo "ok 1 w1: the series touches no kernel C file"
	exit 0
fi
base=$CACHE/w1-base
if [ ! -d "$base" ]; then
	git -C "$SRC" worktree add -q --detach "$base" "$BASE_BRANCH"
else
	git -C "$base" checkout -q --detach "$BASE_BRANCH"
fi

# w1 TREE BUILD: warnings of the touched objects, one per line, sorted.
w1() {
	local tree=$1 build=$2
	local k=(make -C "$tree" O="$build" -j"$JOBS" CC="ccache gcc")

	mkdir -p "$build"
	cp "$BUILD/.config" "$build/.config"
	"${k[@]}" -s olddefconfig prepare >/dev/null 2>&1 ||
		{ echo "make prepare failed in $tree" >&2; return 1; }
	rm -f "${objs[@]/#/$build/}"
	# Line numbers differ between the two sides: compare without them.
	"${k[@]}" W=1 C=1 "${objs[@]}" 2>&1 | grep -E 'warning:|error:' |
		sed -E "s|$tree/||; s|:[0-9]+:([0-9]+:)?|:|" | sort
}
w1 "$base" "$CACHE/build-w1-base" >"$CACHE/w1-base.txt" || exit 1
w1 "$SRC" "$CACHE/build-w1-series" >"$CACHE/w1-series.txt" || exit 1
new=$(comm -13 "$CACHE/w1-base.txt" "$CACHE/w1-series.txt")
if [ -n "$new" ]; then
	printf '# %s\n' "$new"
	echo "not ok 1 w1: new W=1/C=1 warnings in ${objs[*]}"
	exit 1
fi
echo "ok 1 w1: no new W=1/C=1 warnings in ${objs[*]} ($(wc -l <"$CACHE/w1-base.txt") on the base)"
