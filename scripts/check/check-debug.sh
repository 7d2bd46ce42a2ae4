#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-debug`: the same loop with a debug kernel (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_NET, kmemleak: scripts/check/debug.config)
# built in its own tree, $CACHE/build-debug.  The run fails on any
# BUG/WARNING/KASAN/lockdep report in the guest log (scripts/vm/vm-exec.sh) and
# on kmemleak's suspected leaks after a final scan (scripts/vm/vm-payload.sh).
# Then the bounded netlink fuzzer runs for FUZZ_SECONDS (120) with
# FUZZ_SEED (1) on the same kernel.
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

S=$TOP/scripts
export BUILD=$CACHE/build-debug
export EXTRA_CONFIG=$TOP/scripts/check/debug.config
# KASAN under TCG: give each selftest more time.
export VM_TIMEOUT=${VM_TIMEOUT:-5400} VM_MEM=${VM_MEM:-3G}
export KMEMLEAK_SCAN=1
kernel_up_to_date || exit 1
rc=0
step "boot and run selftests (debug kernel)" "$S/loop/selftests-in-vm.sh" || rc=1
# The netlink fuzzer (scripts/fuzz/ifa_fuzz.c), bounded, fixed seed.
"$S/fuzz/fuzz.sh" --build || exit 1
step "fuzz RTM_NEWADDR/RTM_DELADDR (debug kernel, seed ${FUZZ_SEED:=1})" \
	env KERNEL="$BUILD/arch/x86/boot/bzImage" "$S/vm/vm-exec.sh" \
	"$S/fuzz/fuzz.sh" -s "$FUZZ_SEED" -t "${FUZZ_SECONDS:-120}" || rc=1
exit "$rc"
