#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the VM (scripts/loop/selftests-in-vm.sh passes it to scripts/vm/vm-exec.sh):
# the series' selftests through the kselftest runner (KTAP), then the
# upstream selftests named in $UPSTREAM_TESTS, built on the host in place
# in $SRC.  Each upstream entry is PROGRAM or SCRIPT:TEST[,TEST...].
# RUN_OURS=0 runs the upstream ones only.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

if [ "${RUN_OURS:-1}" = 1 ]; then
	make -C "$TOP/selftests" --no-print-directory run_tests
fi

# Debug kernels: ask kmemleak for a final verdict; scripts/vm/vm-exec.sh fails
# the run on suspected leaks in dmesg.  A scan that cannot be made (no
# kmemleak, or no debugfs: scripts/vm/vm-init.sh mounts it) fails the run
# too: a silent skip would read as "no leak".
kmemleak_scan() {
	local rc=$? f=/sys/kernel/debug/kmemleak

	[ "${KMEMLEAK_SCAN:-0}" = 1 ] || return 0
	if [ ! -w "$f" ]; then
		echo "kmemleak: no $f: cannot scan for leaks"
		exit 1
	fi
	echo scan >"$f" && echo scan >"$f"
	if [ -s "$f" ]; then
		echo "kmemleak: suspected memory leaks:"
		cat "$f"
		echo "kmemleak: suspected memory leaks found" >/dev/kmsg
	else
		echo "kmemleak: final scan: no suspected leak"
	fi
	exit "$rc"
}
trap kmemleak_scan EXIT

[ -n "${UPSTREAM_TESTS:-}" ] || exit 0
netdir=$SRC/tools/testing/selftests/net
BASE_DIR=$SRC/tools/testing/selftests
export BASE_DIR
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
	w=$wrap/${name%.sh}${args:+-${args//[^A-Za-z0-9_]/_}}
	printf '#!/bin/bash\ncd %q && exec %q %s\n' "$netdir" "$bin" \
		"${args:+-t \"${args//,/ }\"}" >"$w"
	chmod +x "$w"
	tests+=("$w")
done
cd "$wrap" && run_many "${tests[@]}"
