#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 4: build the selftests on the host (the VM sees the host's files
# read-only), boot the kernel in $BUILD, run the selftests inside.  Run
# alone (not from scripts/loop.sh), it also does step 5: the per-test
# table and the summary (scripts/loop/report.sh).
#
# UPSTREAM_TESTS: upstream selftests to run after ours (PROGRAM or
# SCRIPT:TEST[,TEST...]); default: the two that prove the loop on its own.
# UPSTREAM_BINS: helper programs those scripts need.  RUN_OURS=0: upstream
# ones only (scripts/check/check-upstream.sh).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

UPSTREAM_TESTS=${UPSTREAM_TESTS-"psock_tpacket rtnetlink.sh:kci_test_promote_secondaries"}
# Upstream binaries are built in place in our own tree ($SRC, never the
# user's KSRC), next to the scripts that run them.
netdir=$SRC/$NETDIR
export UPSTREAM_TESTS

need_pkgs "${PKGS_SELFTESTS[@]}"
KHDR=$BUILD/usr/include
[ -d "$KHDR" ] || die "no installed headers in $KHDR (run scripts/loop/build.sh)"
log "building selftests (KDIR=$SRC)"
build_selftests || die "selftests do not build"
bins=()
for t in $UPSTREAM_TESTS ${UPSTREAM_BINS:-}; do
	t=${t%%:*}
	case "$t" in
	*.sh) ;;
	*) bins+=("$netdir/$t") ;;
	esac
done
if [ ${#bins[@]} -ne 0 ]; then
	make -s -C "$netdir" OUTPUT="$netdir" KHDR_INCLUDES="-isystem $KHDR" \
		"${bins[@]}" >/dev/null ||
		die "upstream selftests do not build: ${bins[*]##*/}"
fi

rc=0
# scripts/loop.sh chooses VM_OUT so that it can report even if this fails.
VM_OUT=${VM_OUT:-$(new_run selftests)}
export VM_OUT
# The tests that must report a result (scripts/loop/report.sh counts the others
# as failed): ours, as make lists them from selftests/Makefile (the C
# programs and the scripts), and the upstream wrappers, named as
# scripts/vm/vm-payload.sh names them.
{
	if [ "${RUN_OURS:-1}" = 1 ]; then
		selftest_names "$TOP/selftests" || die "cannot list the selftests"
	fi
	for t in $UPSTREAM_TESTS; do
		upstream_name "$t"
	done
} >"$VM_OUT/expected"
VM_ENV="RUN_OURS SELFTESTS UPSTREAM_TESTS KMEMLEAK_SCAN KSFT_TIMEOUT" "$TOP/scripts/vm/vm-exec.sh" "$TOP/scripts/vm/vm-payload.sh" || rc=$?
[ -n "${NO_REPORT:-}" ] && exit "$rc"
"$TOP/scripts/loop/report.sh" "$VM_OUT" || rc=1
exit "$rc"
