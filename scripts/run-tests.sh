#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 4+5: build the selftests on the host (the VM sees the host's files
# read-only), boot the kernel in $BUILD, run the selftests inside, then
# print the per-test table and the summary (scripts/report.sh).
#
# UPSTREAM_TESTS: upstream selftests to run after ours (PROGRAM or
# SCRIPT:TESTNAME); default: the two that prove the loop on its own.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

UPSTREAM_TESTS=${UPSTREAM_TESTS-"psock_tpacket rtnetlink.sh:kci_test_promote_secondaries"}
UPSTREAM_OUT=$CACHE/upstream-net
export UPSTREAM_TESTS UPSTREAM_OUT

need_pkgs "${PKGS_SELFTESTS[@]}"
KHDR=$BUILD/usr/include
[ -d "$KHDR" ] || die "no installed headers in $KHDR (run scripts/build.sh)"
log "building selftests (KSRC=$SRC)"
make -s -C "$TOP/selftests" KSRC="$SRC" KHDR="$KHDR" >/dev/null ||
	die "selftests do not build"
for t in $UPSTREAM_TESTS; do
	t=${t%%:*}
	case "$t" in
	*.sh) ;;
	*)
		mkdir -p "$UPSTREAM_OUT"
		make -s -C "$SRC/tools/testing/selftests/net" OUTPUT="$UPSTREAM_OUT" \
			KHDR_INCLUDES="-isystem $KHDR" "$UPSTREAM_OUT/$t" >/dev/null ||
			die "upstream selftest $t does not build"
		;;
	esac
done

rc=0
mkdir -p "$RUNS"
VM_OUT=$(mktemp -d "$RUNS/$(date +%Y%m%d-%H%M%S)-selftests.XXXX")
export VM_OUT
VM_ENV="RUN_OURS UPSTREAM_TESTS UPSTREAM_OUT" "$TOP/scripts/vm-run.sh" "$TOP/scripts/vm-payload.sh" || rc=$?
"$TOP/scripts/report.sh" "$VM_OUT" || rc=1
exit "$rc"
