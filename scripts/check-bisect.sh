#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-bisect`: every prefix of the series builds.  For patch K the
# first K patches are applied, the kernel is built in its own tree
# ($CACHE/build-bisect, incremental, ccache) and the selftest programs that
# patch adds are compiled with -Werror against its uapi headers (lib.mk's
# USERCFLAGS hook: a CFLAGS= on the command line would replace the net
# Makefile's own flags, and with them the uapi include path).  The series
# is re-applied at the end.  Not part of `make check` (a build per patch).
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
lock_tree

S=$TOP/scripts
export BUILD=$CACHE/build-bisect
n=$(series_patches | wc -l)
rc=0
for k in $(seq 1 "$n"); do
	name=$(series_patches | sed -n "${k}p")
	name=${name##*/}
	if ! PATCHES_UPTO=$k "$S/apply.sh" >/dev/null 2>&1 ||
	   ! "$S/build.sh" >/dev/null 2>&1; then
		echo "not ok $k bisect: $name does not build (log: $BUILD/build.log)"
		rc=1
		continue
	fi
	progs=()
	for f in $(git -C "$SRC" diff --name-only HEAD~1 -- tools/testing/selftests/net/ | grep '\.c$'); do
		progs+=("$SRC/${f%.c}")
	done
	if [ ${#progs[@]} -ne 0 ] &&
	   ! make -s -C "$SRC/tools/testing/selftests/net" OUTPUT="$SRC/tools/testing/selftests/net" \
		KHDR_INCLUDES="-isystem $BUILD/usr/include" USERCFLAGS="-Wextra -Werror" \
		"${progs[@]}" >/dev/null 2>&1; then
		echo "not ok $k bisect: $name: selftests do not build"
		rc=1
		continue
	fi
	echo "ok $k bisect: $name builds${progs:+ (and ${#progs[@]} selftest programs)}"
done
"$S/apply.sh" >/dev/null 2>&1 || true
exit "$rc"
