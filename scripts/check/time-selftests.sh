#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-test runtimes of two versions of selftests/ in one VM boot: those of
# REV (default ecee3cc, the selftests before their rework) and those of the
# working tree, each test run once and timed, on KERNEL (default: the
# series kernel, brought up to date; for check-debug's kernel pass
# KERNEL=$CACHE/build-debug/arch/x86/boot/bzImage after `make check-debug`).
#
#   scripts/check/time-selftests.sh [REV]
#
# Prints a Markdown table: seconds and exit code of each test, old and new.
# Not a benchmark: one run each, on whatever the host is doing meanwhile.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

# In the guest: time each test of each DIR (NAME=DIR:TEST,TEST...).
if [ "${1:-}" = --guest ]; then
	shift
	for spec in "$@"; do
		name=${spec%%=*}
		dir=${spec#*=}
		dir=${dir%%:*}
		tests=${spec#*:}
		for t in ${tests//,/ }; do
			t0=$(date +%s.%N)
			rc=0
			(cd "$dir" && timeout 900 "./$t" >"/tmp/$name.$t.log" 2>&1) ||
				rc=$?
			t1=$(date +%s.%N)
			awk -v n="$name" -v t="$t" -v a="$t0" -v b="$t1" -v rc="$rc" \
				'BEGIN { printf "time %s %s %.2f %s\n", n, t, b - a, rc }'
		done
	done
	exit 0
fi

lock_tree
rev=${1:-ecee3cc}
kernel_up_to_date
build_selftests
old=$CACHE/times/$rev
rm -rf "$old"
mkdir -p "$old"
git -C "$TOP" archive "$rev" selftests | tar -x -C "$old"
make -s -C "$old/selftests" KSRC="$SRC" KHDR="$BUILD/usr/include" \
	>"$old/build.log" 2>&1 || die "selftests of $rev do not build: $old/build.log"

# The tests a directory's Makefile runs, comma-separated.
tests_of() {
	selftest_names "$1" | paste -sd, -
}
old_tests=$(tests_of "$old/selftests")
new_tests=$(tests_of "$TOP/selftests")

mkdir -p "$RUNS"
out=$(mktemp -d "$RUNS/$(date +%Y%m%d-%H%M%S)-times.XXXX")
VM_OUT=$out VM_TIMEOUT=${VM_TIMEOUT:-3600} "$TOP/scripts/vm/vm-exec.sh" \
	"$0" --guest "old=$old/selftests:$old_tests" \
	"new=$TOP/selftests:$new_tests" || true
echo "kernel: ${KERNEL:-$BUILD/arch/x86/boot/bzImage}, run $out"
echo
echo "| version | test | seconds | exit |"
echo "|---|---|---:|---:|"
awk '$1 == "time" { printf "| %s | %s | %.1f | %s |\n", $2 == "old" ? "'"$rev"'" : "now", $3, $4, $5 }' \
	"$out/output"
