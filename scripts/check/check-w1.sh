#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-w1`: build the kernel objects the series touches with W=1 and
# C=1 (sparse) on the base and on the series, and fail on any warning the
# series adds.  As netdev's CI does, three builds: x86_64 with gcc, 32-bit
# (ARCH=i386) with gcc, x86_64 with clang (LLVM=1, in the Debian root of
# scripts/check/llvm-root.sh: the host's LLVM is too old for this kernel).
# W1_VARIANTS picks some of them.  The base is checked out in its own
# worktree ($CACHE/w1-base); each side of each build has its own build tree
# made from the test kernel's .config (`make prepare`, then only the
# touched objects).
# Not -e: a build that fails is a result line, the others still run.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

need_pkgs sparse
S=$TOP/scripts
step "apply series" "$S/loop/apply.sh" || exit 1
mapfile -t objs < <(git -C "$SRC" diff --name-only "$BASE_BRANCH..$SERIES_BRANCH" -- '*.c' |
	grep -v '^tools/' | sed 's/\.c$/.o/')
if [ ${#objs[@]} -eq 0 ]; then
	ktap_result 0 "w1: the series touches no kernel C file"
	exit 0
fi
base=$CACHE/w1-base
if [ ! -d "$base" ]; then
	git -C "$SRC" worktree add -q --detach "$base" "$BASE_BRANCH"
else
	git -C "$base" checkout -q --detach "$BASE_BRANCH"
fi

# kmake VARIANT TREE BUILD ARGS...: make for one of the builds.
kmake() {
	local v=$1 tree=$2 build=$3
	shift 3
	case "$v" in
	x86_64-gcc) make -C "$tree" O="$build" -j"$JOBS" CC="ccache gcc" "$@" ;;
	i386-gcc) make -C "$tree" O="$build" -j"$JOBS" ARCH=i386 CC="ccache gcc" "$@" ;;
	x86_64-clang) "$S/check/llvm-root.sh" run make -C "$tree" O="$build" -j"$JOBS" \
		LLVM=1 CC="ccache clang" "$@" ;;
	*) die "unknown W1_VARIANTS entry: $v" ;;
	esac
}

# w1 VARIANT TREE BUILD: warnings of the touched objects, one per line,
# sorted.
w1() {
	local v=$1 tree=$2 build=$3

	mkdir -p "$build"
	cp "$BUILD/.config" "$build/.config"
	kmake "$v" "$tree" "$build" -s olddefconfig prepare >"$build/prepare.log" 2>&1 ||
		{ echo "make prepare ($v) failed in $tree: $build/prepare.log" >&2; return 1; }
	rm -f "${objs[@]/#/$build/}"
	# Line numbers differ between the two sides: compare without them.
	kmake "$v" "$tree" "$build" W=1 C=1 "${objs[@]}" 2>&1 |
		grep -E 'warning:|error:' |
		sed -E "s|$tree/||; s|:[0-9]+:([0-9]+:)?|:|" | sort
	for o in "${objs[@]}"; do
		[ -f "$build/$o" ] || { echo "no $o: build ($v) failed in $tree" >&2; return 1; }
	done
}

for v in ${W1_VARIANTS:-x86_64-gcc i386-gcc x86_64-clang}; do
	wb=$CACHE/w1-$v-base.txt
	ws=$CACHE/w1-$v-series.txt
	if ! w1 "$v" "$base" "$CACHE/build-w1-$v-base" >"$wb" ||
		! w1 "$v" "$SRC" "$CACHE/build-w1-$v-series" >"$ws"; then
		ktap_result 1 "w1 $v: build failed"
		continue
	fi
	comm -13 "$wb" "$ws" >"$ws.new"
	[ ! -s "$ws.new" ]
	ktap_result $? "w1 $v: no new W=1/C=1 warnings in ${objs[*]} ($(wc -l <"$wb") on the base)" "$ws.new"
done
ktap_summary check-w1
