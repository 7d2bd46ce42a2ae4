#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The proof loop, five steps, numbered the same in each step's script:
#   1 fetch base  2 apply series  3 build kernel  4 selftests in the VM
#   5 report ("N passed, N failed, N skipped")
#
#   scripts/loop.sh all     `make`: the five steps
#   scripts/loop.sh check   `make check`: the same with the static checks
#                           after step 3; their results are part of the
#                           final "N passed, N failed" line.
# Not -e: the report is made whatever failed (fail() below).
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
mode=${1:-all}
case "$mode" in
all | check) ;;
*) die "usage: loop.sh [all|check]" ;;
esac
lock_tree

S=$TOP/scripts
STATIC_KTAP=$CACHE/static.ktap
export STATIC_KTAP
rm -f "$STATIC_KTAP"

fail() {
	# Keep the contract: the last line is the summary, even on early exit
	# (the static checks' results count, plus this failure).
	log "$1"
	{
		cat "$STATIC_KTAP" 2>/dev/null
		printf 'KTAP version 1\n1..1\nnot ok 1 loop: %s\n' "$1"
	} >"$CACHE/loop.ktap"
	STATIC_KTAP=$CACHE/loop.ktap "$S/loop/report.sh" /nonexistent-run
	exit 1
}

log "base: ${KSRC:-Debian linux-source (newest 7.x)}, cache: $CACHE"
kernel_up_to_date || fail "no kernel: steps 1-3 (base, series, build) failed, see above"
static_rc=0
if [ "$mode" = check ]; then
	step "static checks" "$S/check/check-static.sh" || static_rc=1
fi
rc=0
VM_OUT=$(new_run selftests)
export VM_OUT
export NO_REPORT=1
step "4 selftests in the VM" "$S/loop/selftests-in-vm.sh" || rc=$?
log "total: $(($(date +%s) - _t0))s"
[ "$static_rc" -eq 0 ] || rc=1
log "== 5 report"
"$S/loop/report.sh" "$VM_OUT" || rc=1
exit "$rc"
