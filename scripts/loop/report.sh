#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 5: turn a run's KTAP output (and the static checks' results, when
# $STATIC_KTAP exists) into a per-test table and the summary line
# "N passed, N failed, N skipped".  Exit 1 if anything failed or nothing ran.
#
#   scripts/loop/report.sh [RUN_DIR]      (default: $RUNS/latest)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

run=${1:-$RUNS/latest}
files=()
[ -f "${STATIC_KTAP:-/nonexistent}" ] && files+=("$STATIC_KTAP")
[ -f "$run/output" ] && files+=("$run/output")
extra=$(mktemp)
trap 'rm -f "$extra"' EXIT
if ! grep -qE '^(not )?ok [0-9]+ ' "$run/output" 2>/dev/null; then
	echo "no selftest results in $run" >>"$extra"
fi
# The VM's own failure (timeout, no result, kernel splat: scripts/vm/vm-exec.sh).
if [ -s "$run/vm-error" ]; then
	echo "vm: $(cat "$run/vm-error")" >>"$extra"
fi
# Tests that were to run (scripts/loop/selftests-in-vm.sh) but printed no result.
if [ -f "$run/expected" ] && [ -f "$run/output" ]; then
	while read -r t; do
		grep -qE "^(not )?ok [0-9]+ selftests: [^:]*: $t( |$)" "$run/output" ||
			echo "$t # did not run" >>"$extra"
	done <"$run/expected"
fi
# ... as a KTAP document of their own: one failed result each.
if [ -s "$extra" ]; then
	awk 'BEGIN { print "KTAP version 1" } { print "not ok " NR " " $0 }
		END { print "1.." NR }' "$extra" >"$extra.ktap"
	mv "$extra.ktap" "$extra"
fi
files+=("$extra")

# Top-level KTAP results ("ok N selftests: DIR: NAME [# SKIP ...]"), not the
# nested ones a test prints behind "# ".
awk '
/^(not )?ok [0-9]+ / {
	ok = ($1 == "ok")
	line = $0
	sub(/^(not )?ok [0-9]+ /, "", line)
	name = line
	sub(/ # .*/, "", name)
	sub(/^selftests: [^:]*: /, "", name)
	res = ok ? "PASS" : "FAIL"
	# XFAIL is also what the runner prints for exit code 2, which
	# scripts use for "could not run": count it as skipped, not passed.
	if (ok && line ~ /# (SKIP|skip|XFAIL)/)
		res = "SKIP"
	if (!ok && line ~ /# (TIMEOUT)/)
		res = "FAIL (timeout)"
	if (!ok && line ~ /# did not run/)
		res = "FAIL (did not run)"
	printf "  %-58s %s\n", name, res
	if (res == "PASS") p++
	else if (res == "SKIP") s++
	else f++
}
END {
	printf "%d passed, %d failed, %d skipped\n", p, f, s
	exit (f > 0 || p + f == 0)
}' "${files[@]}"
