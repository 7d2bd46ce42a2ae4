#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM runner (used by step 4 and by every target that boots a kernel):
# boot the built kernel under QEMU (TCG: no KVM on these machines) and run
# one command inside, in the current directory, as root.
#
#   scripts/vm/vm-exec.sh [CMD ARGS...]     (default: make -C selftests run_tests)
#
# The guest's root is the host's, read-only over virtio-9p, so everything the
# command needs (selftest binaries, iproute2, ...) is built on the host first.
# A second, writable 9p share carries the command in and the results out into
# $RUNS/<timestamp>/ (output, rc, dmesg, serial.log).  Exit code: the
# command's; 124 if the VM timed out; 1 if the guest log shows a kernel
# BUG/WARNING/Oops/KASAN/lockdep report, whatever the command returned.
# Runs are serialized with a lock: two QEMUs on 2 cores slow each other.
#
# VM=qemu (default): our QEMU command line and init (scripts/vm/vm-init.sh as
# PID 1).  VM=vng: the same kernel, command and results through virtme-ng
# (what netdev developers use; slower to the command, see
# Documentation/design.md), installed on first use (lib.sh need_vng).
#
# Environment (defaults: make help): KERNEL (bzImage), VM_ACCEL, ICOUNT (1:
# instruction counting, see below), VM_TIMEOUT (s), VM_MEM,
# VM_CPUS, VM_APPEND (more kernel command line, e.g. "kmemleak=off"),
# VM_ENV (names of variables to pass into the guest), VM_OUT
# (results directory; default a new one under $RUNS, also linked as
# $RUNS/latest).  A run that did not end normally (timeout, no result,
# kernel splat) leaves its reason in $out/vm-error for scripts/loop/report.sh.
# QEMU is killed when this script is interrupted.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

KERNEL=${KERNEL:-$(kernel_image "$BUILD")}
VM_TIMEOUT=${VM_TIMEOUT:-2400}
VM_MEM=${VM_MEM:-2G}
VM_CPUS=${VM_CPUS:-2}

VM=${VM:-qemu}
# The kernel command line both runners pass (each adds how it mounts the
# root and starts the init).
append="oops=panic${VM_APPEND:+ $VM_APPEND}"

[ -f "$KERNEL" ] || die "no kernel at $KERNEL (run scripts/loop/build.sh)"
need_pkgs "${PKGS_VM[@]}"
case "$VM" in
qemu) ;;
vng) need_vng ;;
*) die "VM=$VM: qemu or vng" ;;
esac
[ $# -gt 0 ] || set -- make -C "$TOP/selftests" run_tests

out=${VM_OUT:-$(new_run vm)}
mkdir -p "$out" "$RUNS"
{
	echo "cd $(printf '%q' "$PWD") || exit 1"
	# The cache paths always: the guest's lib.sh, selftests/Makefile and
	# helpers must use the same trees as the host (CACHE=... runs).
	for v in CACHE SRC BUILD RUNS ${VM_ENV:-}; do
		[ -n "${!v+x}" ] && echo "export $v=$(printf '%q' "${!v}")"
	done
	printf '%q ' "$@"
	echo
} >"$out/cmd"
: >"$out/output"
chmod 0777 "$out"

exec 9>"$CACHE/vm.lock"
if ! flock -n 9; then
	log "waiting for another VM run to finish"
	flock 9
fi

rm -f "$out/vm-error" "$out/rc"
ln -sfn "$out" "$RUNS/latest"
log "booting $(basename "$KERNEL") ($(file -b "$KERNEL" | grep -o 'version [^ ]*' || true)), results: $out"
rootflags=trans=virtio,version=9p2000.L,access=any,msize=524288,cache=loose
rc=0
qpid=
# shellcheck disable=SC2317,SC2329 # called by the trap
stop_vm() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	echo "interrupted" >"$out/vm-error"
	exit 130
}
trap stop_vm INT TERM HUP
# VM_ACCEL: accelerators in the order QEMU tries them, e.g. "kvm tcg" (KVM
# where it works, TCG otherwise).  The default is tcg: on these machines
# /dev/kvm exists, but a KVM guest hangs at "Booting from ROM" (measured
# 2026-12-03: no output for 10 minutes), so KVM is only used when asked.
accel=()
for a in ${VM_ACCEL:-tcg}; do
	accel+=(-accel "$a")
done
# ICOUNT=1: QEMU's instruction counting, `-icount shift=0,sleep=off`: the
# guest clock advances 1 ns per guest instruction executed (and jumps over
# idle time), so a time measured in the guest is a count of instructions,
# whatever else the host runs, unless the guest waits for the host: a page
# or a program read over the 9p root is idle time the clock jumps over, by
# more the busier the host is, so a benchmark times nothing that reads it
# (lib.sh stage_helper, bench-flush.sh stage: tmpfs copies).  It implies TCG and one host thread for all
# vCPUs (they take turns), so it measures work, not parallel speed; cache
# and memory effects of real hardware are not modelled.  The benchmarks use
# it by default (scripts/bench/bench.sh).
icount=()
if [ "${ICOUNT:-0}" = 1 ]; then
	icount=(-icount "shift=0,sleep=off")
	[ "${VM_ACCEL:-tcg}" = tcg ] || die "ICOUNT=1 needs VM_ACCEL=tcg"
fi
echo "vm=$VM accel=${VM_ACCEL:-tcg} icount=${ICOUNT:-0} cpus=$VM_CPUS mem=$VM_MEM" >"$out/vm-mode"
# The log shown when the VM ends without a result.
vmlog=$out/qemu.log
# QEMU must not hold the locks' descriptors (8: lock_tree, 9: vm.lock).
if [ "$VM" = vng ]; then
	# virtme-ng: the host root read-only over 9p (virtiofs needs virtiofsd)
	# with its own init, which mounts tmpfs over /var/cache and /var/tmp:
	# the cache and this checkout are passed as read-only dirs at the same
	# paths.  "out" is a writable dir at /run/out, as with our init, and
	# scripts/vm/vm-init.sh runs the command there: the exit code comes back
	# in $out/rc (vng's own is 255 without the host's udev).  --verbose
	# sends the kernel console to stderr, kept as serial.log.
	vng=(vng --run "$KERNEL" --force-9p --cpus "$VM_CPUS" --memory "$VM_MEM" --verbose
		--rwdir "/run/out=$out" --rodir "$TOP" --rodir "$CACHE"
		--append "root=/dev/root $append"
		--exec "bash $(printf '%q' "$TOP/scripts/vm/vm-init.sh")")
	[[ " ${VM_ACCEL:-tcg} " = *" kvm "* ]] || vng+=(--disable-kvm)
	[ ${#icount[@]} -eq 0 ] || vng+=(--qemu-opts "${icount[*]}")
	vmlog=$out/serial.log
	# Not --foreground: on a timeout or an interruption, timeout signals its
	# whole process group (vng, virtme-run, QEMU).
	timeout -k 10 "$VM_TIMEOUT" "${vng[@]}" </dev/null >"$out/serial.log" 2>&1 8>&- 9>&- &
else
timeout --foreground -k 10 "$VM_TIMEOUT" qemu-system-x86_64 \
	"${accel[@]}" "${icount[@]}" -cpu max -m "$VM_MEM" -smp "$VM_CPUS" \
	-nographic -no-reboot -monitor none -serial "file:$out/serial.log" \
	-kernel "$KERNEL" \
	-append "console=ttyS0 quiet panic=-1 root=/dev/root rootfstype=9p rootflags=$rootflags ro init=$TOP/scripts/vm/vm-init.sh $append" \
	-fsdev local,id=root,path=/,readonly=on,security_model=none,multidevs=remap \
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
	-fsdev local,id=out,path="$out",security_model=none \
	-device virtio-9p-pci,fsdev=out,mount_tag=out \
	</dev/null >"$out/qemu.log" 2>&1 8>&- 9>&- &
fi
qpid=$!
# Show the command's output live (the guest tees it into the share).
tail -n +1 -s 0.5 -f --pid="$qpid" "$out/output" 2>/dev/null || true
wait "$qpid" || rc=$?
qpid=
exec 9>&-

if [ "$rc" -eq 124 ]; then
	echo "timed out after ${VM_TIMEOUT}s" >"$out/vm-error"
	log "VM timed out after ${VM_TIMEOUT}s (serial log: $out/serial.log)"
	exit 124
fi
if [ ! -f "$out/rc" ]; then
	tail -n 40 "$vmlog" >&2
	echo "ended without a result ($VM rc=$rc)" >"$out/vm-error"
	log "VM ended without a result ($VM rc=$rc, serial log: $out/serial.log)"
	exit 1
fi
rc=$(cat "$out/rc")
# Kernel log lines only (printk time stamps), in the serial log (which also
# carries the command's own output) and in dmesg.
splat='^\[ *[0-9]+\.[0-9]+\] .*(BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|possible circular locking|possible recursive locking|unreferenced object|suspected memory leaks|Call Trace:)'
if grep -Eq "$splat" "$out/serial.log" "$out/dmesg"; then
	grep -E -m 10 "$splat" "$out/serial.log" "$out/dmesg" >&2
	echo "kernel splat in the guest log (dmesg: $out/dmesg)" >"$out/vm-error"
	log "kernel splat in the guest log: failing the run (dmesg: $out/dmesg)"
	exit 1
fi
exit "$rc"
