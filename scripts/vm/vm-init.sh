#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test VM (see scripts/vm/vm-exec.sh).  The root is the host's file
# system, read-only over virtio-9p; the 9p share "out" is writable and holds
# the command to run ("cmd") and receives its output, exit code and dmesg.
# With VM=vng it is not PID 1 but the command virtme-ng's init runs: that
# init has mounted the file systems, and "out" is its --rwdir at /run/out.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=dumb LANG=C.UTF-8
# Not -e: as PID 1 it must reach the poweroff whatever failed before.
set -uo pipefail

# A fresh /tmp, but a checkout that lives under the host's /tmp (a CI clone)
# stays visible at the same path.  Both VMs: virtme-ng's /tmp is an overlay
# of the host's only when the kernel has OVERLAY_FS (ours does not), and is
# read-only otherwise.
fresh_tmp() {
	top=$(cd "$(dirname "$0")/../.." && pwd)
	case "$top" in
	/tmp/*)
		keep=/tmp/$(echo "${top#/tmp/}" | cut -d/ -f1)
		mkdir -p /run/hosttmp
		mount --bind /tmp /run/hosttmp
		mount -t tmpfs tmpfs /tmp
		mkdir -p "$keep"
		mount --bind "/run/hosttmp/${keep#/tmp/}" "$keep"
		;;
	*)
		mount -t tmpfs tmpfs /tmp
		;;
	esac
}

# Our own init only (VM=qemu): the mounts virtme-ng's init makes itself.
own_init_mounts() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev 2>/dev/null
	mkdir -p /dev/pts /dev/shm
	ln -sf /proc/self/fd /dev/fd
	ln -sf /proc/self/fd/0 /dev/stdin
	ln -sf /proc/self/fd/1 /dev/stdout
	ln -sf /proc/self/fd/2 /dev/stderr
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	mount -t tmpfs tmpfs /run
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	mkdir -p /run/out
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 out /run/out
}

[ $$ -ne 1 ] || own_init_mounts
fresh_tmp
[ -f /run/out/cmd ] || { echo "vm: no /run/out/cmd"; exit 1; }
mkdir -p /run/netns /tmp/var-tmp
ip link set lo up
hostname netseries-vm 2>/dev/null

echo "vm: $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"
bash /run/out/cmd 2>&1 | tee /run/out/output
rc=${PIPESTATUS[0]}
# Debug kernels (KMEMLEAK_SCAN=1 passed in by scripts/vm/vm-exec.sh): a
# final kmemleak verdict after the command; vm-exec.sh fails the run on
# suspected leaks in dmesg.  A scan that cannot be made (no kmemleak, no
# debugfs) fails the run too: a silent skip would read as "no leak".
if grep -qx 'export KMEMLEAK_SCAN=1' /run/out/cmd; then
	f=/sys/kernel/debug/kmemleak
	if [ ! -w "$f" ]; then
		echo "kmemleak: no $f: cannot scan for leaks"
		exit 1	# the pipeline's subshell
	elif echo scan >"$f" && echo scan >"$f" && [ -s "$f" ]; then
		echo "kmemleak: suspected memory leaks:"
		cat "$f"
		echo "kmemleak: suspected memory leaks found" >/dev/kmsg
	else
		echo "kmemleak: final scan: no suspected leak"
	fi 2>&1 | tee -a /run/out/output
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
fi
dmesg >/run/out/dmesg
echo "$rc" >/run/out/rc
sync
echo "vm: command exited with $rc"
# Under virtme-ng its init powers off when this command returns.
[ $$ -eq 1 ] || exit "$rc"
poweroff -f 2>/dev/null
echo o >/proc/sysrq-trigger
sleep 10
