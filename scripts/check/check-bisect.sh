#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-bisect`: every prefix of the series builds.  For patch K the
# first K patches are applied, the kernel is built in its own tree
# ($CACHE/build-bisect, incremental, ccache) and the selftest programs that
# patch adds are compiled with -Werror against its uapi headers (lib.mk's
# USERCFLAGS hook: a CFLAGS= on the command line would replace the net
# Makefile's own flags, and with them the uapi include path).  The series
# is re-applied at the end.  Not part of `make check` (a build per patch).
#
# Self-test, first (CHECK_BISECT_SELFTEST=1: the self-test alone, seconds):
# the compile above must use the prefix's uapi headers, not the host's.  A
# small probe that includes <linux/if_addr.h> and kselftest.h and uses
# IFA_F_FLUSH, as the selftests do (ifa_flush itself also needs the YNL
# library), is compiled the same way against the headers of the prefix
# before the patch that adds IFA_F_FLUSH to include/uapi (it must fail,
# naming IFA_F_FLUSH) and of the prefix with it (it must build; the
# host's headers lack the flag, so only the prefix's can provide it).
# Either outcome otherwise fails the check.
# BISECT_SERIES=N-TREE-TOPIC: only the prefixes that end in a patch of
# that series are built (the earlier ones are applied on the way): a
# series changed alone, its dependencies proven by an earlier run.
# Not -e: a prefix that fails to build is a result line, the others still build.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

S=$TOP/scripts
export BUILD=$CACHE/build-bisect
net=$SRC/$NETDIR
PROBE_SYM=IFA_F_FLUSH
probe=$net/bisect_probe
n=$(series_patches | wc -l)

# compile_progs PROG...: selftest programs of $net (paths without .c),
# -Wextra -Werror, against the uapi headers in $BUILD/usr/include.
compile_progs() {
	make -s -C "$net" OUTPUT="$net" KHDR_INCLUDES="-isystem $BUILD/usr/include" \
		USERCFLAGS="-Wextra -Werror" "$@"
}

# probe_prefix K: apply the first K patches, install their uapi headers
# into $BUILD and compile the probe; its log in $probe.log.
probe_prefix() {
	PATCHES_UPTO=$1 "$S/loop/apply.sh" >/dev/null 2>&1 || die "the first $1 patches do not apply"
	make -s -C "$SRC" O="$BUILD" headers_install >/dev/null 2>&1 ||
		die "headers_install failed for the first $1 patches"
	# kselftest.h as the selftests include it: found only through the
	# net Makefile's own include path, which a CFLAGS= override loses.
	printf '#include <linux/if_addr.h>\n#include "kselftest.h"\n\nint main(void)\n{\n\treturn !%s;\n}\n' \
		"$PROBE_SYM" >"$probe.c"
	rm -f "$probe"
	compile_progs "$probe" >"$probe.log" 2>&1
}

selftest() {
	local k name err
	# The patch that adds the flag to the uapi headers.
	k=0
	for p in $(series_patches); do
		k=$((k + 1))
		if sed -n '/^+++ b\/include\/uapi\//,/^diff /p' "$p" | grep -q "^+#define[[:space:]]*$PROBE_SYM\b"; then
			name=${p#"$TOP"/patches/}
			break
		fi
	done
	[ -n "${name:-}" ] || die "no patch adds $PROBE_SYM to include/uapi"
	grep -rqw "$PROBE_SYM" /usr/include/linux &&
		die "the host's headers define $PROBE_SYM: the self-test would prove nothing"
	trap 'rm -f "$probe" "$probe.c" "$probe.log"' EXIT

	if probe_prefix $((k - 1)); then
		ktap_result 1 "bisect self-test: the probe compiled without $name: the check does not use the prefix's headers"
	elif err=$(grep -m1 -w "$PROBE_SYM" "$probe.log"); then
		ktap_result 0 "bisect self-test: without $name the probe fails: ${err#"$net/"}"
	else
		ktap_result 1 "bisect self-test: without $name the probe failed for another reason (log: $probe.log)"
		cat "$probe.log" >&2
		trap - EXIT
	fi
	if probe_prefix "$k"; then
		ktap_result 0 "bisect self-test: with $name the probe compiles (the host's headers lack $PROBE_SYM)"
	else
		ktap_result 1 "bisect self-test: with $name the probe does not compile (log: $probe.log)"
		cat "$probe.log" >&2
		trap - EXIT
	fi
}

selftest
if [ "${CHECK_BISECT_SELFTEST:-0}" != 1 ]; then
	for k in $(seq 1 "$n"); do
		name=$(series_patches | sed -n "${k}p")
		name=${name#"$TOP"/patches/}
		[ -z "${BISECT_SERIES:-}" ] || [[ $name == "$BISECT_SERIES"/* ]] ||
			continue
		if ! PATCHES_UPTO=$k "$S/loop/apply.sh" >/dev/null 2>&1 ||
		   ! "$S/loop/build.sh" >/dev/null 2>&1; then
			ktap_result 1 "bisect: $name does not build (log: $BUILD/build.log)"
			continue
		fi
		progs=()
		for f in $(git -C "$SRC" diff --name-only HEAD~1 -- "$NETDIR/" | grep '\.c$'); do
			progs+=("$SRC/${f%.c}")
		done
		if [ ${#progs[@]} -ne 0 ] && ! compile_progs "${progs[@]}" >/dev/null 2>&1; then
			ktap_result 1 "bisect: $name: selftests do not build"
			continue
		fi
		ktap_result 0 "bisect: $name builds${progs:+ (and ${#progs[@]} selftest programs)}"
	done
fi
"$S/loop/apply.sh" >/dev/null 2>&1 || true
ktap_summary check-bisect
