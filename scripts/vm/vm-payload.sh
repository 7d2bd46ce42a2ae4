#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM (scripts/loop/selftests-in-vm.sh passes it to scripts/vm/vm-exec.sh):
# the series' selftests through the kselftest runner (KTAP), then the
# upstream selftests named in $UPSTREAM_TESTS, built on the host in place
# in $SRC.  Each upstream entry is PROGRAM or SCRIPT:TEST[,TEST...].
# RUN_OURS=0 runs the upstream ones only; SELFTESTS="a.sh ..." some of
# ours only (selftests_only in scripts/lib.sh).
# Not -e: the upstream tests run even when one of ours fails; the results
# are the KTAP lines, which scripts/loop/report.sh counts.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

if [ "${RUN_OURS:-1}" = 1 ]; then
	selftests_only
	make -C "$TOP/selftests" --no-print-directory "${ONLY[@]}" run_tests
fi

[ -n "${UPSTREAM_TESTS:-}" ] || exit 0
netdir=$SRC/$NETDIR
BASE_DIR=$SRC/tools/testing/selftests
export BASE_DIR
# The kernel's runner reads variables it may not have (not -u).
set +u
. "$BASE_DIR/kselftest/runner.sh"
export kselftest_default_timeout=3600
# Wrappers in a writable directory: the runner runs ./NAME from its dir.
wrap=/tmp/upstream
mkdir -p "$wrap"
tests=()
for t in $UPSTREAM_TESTS; do
	name=${t%%:*}
	args=
	[ "$name" = "$t" ] || args=${t#*:}
	bin=$netdir/$name
	w=$wrap/$(upstream_name "$t")
	printf '#!/bin/bash\ncd %q && exec %q %s\n' "$netdir" "$bin" \
		"${args:+-t \"${args//,/ }\"}" >"$w"
	chmod +x "$w"
	tests+=("$w")
done
cd "$wrap" && run_many "${tests[@]}"
