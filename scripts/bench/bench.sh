#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-flush|bench-demux|bench-ring|bench-packet-netns`: bring the
# series kernel up to date (fetch, apply, build), build the benchmark's
# helper program on the host (its script's --build), then run the script
# inside one VM boot.  Benchmarks report ratios measured in the same run;
# their options come from the environment, passed into the guest (the
# BENCH_* variables in the header of each scripts/bench/bench-*.sh).
#
# BENCH_KERNEL: the kernel measured.  series (default): the series kernel;
# base: the base kernel without the series instead (a run of its own;
# a published figure that compares kernels takes one run of both);
# both: the two kernels in ONE run: both are built, one run directory
# gets one meta that names both images
# (kernel-image-base:, kernel-image-series:, ... where a single-kernel
# run has kernel-image:, ...), and the same script boots once per kernel
# with its results in the run's base/ and series/ (each with its own
# output, vm-mode, rc, dmesg: scripts/vm/vm-exec.sh's VM_OUT), base first.
# bench-packet-netns (series only) is a run of two kernels too: the series
# kernel and Debian's 6.12, in series/ and 6.12/.
# The guest's BENCH_BOOT says which kernel it booted: base, series, or
# other (bench-packet-netns's 6.12); it is not a knob of the run.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

name=${1:?usage: bench.sh flush|demux|ring|packet-netns}
script=$TOP/scripts/bench/bench-$name.sh
[ -x "$script" ] || die "no benchmark $script"
# The benchmark kernels: the test kernel's config and
# scripts/bench/bench.config, in trees of their own.
export EXTRA_CONFIG="$TOP/scripts/bench/bench.config${EXTRA_CONFIG:+ $EXTRA_CONFIG}"
export BUILD=$CACHE/build-bench
kernel_up_to_date
# BENCH_KERNEL=base: the base kernel without the series instead; both:
# the series kernel's image and tree kept before variant_kernel moves
# $BUILD (and $SRC's branch) to the base.
[ "$name" != packet-netns ] || [ "${BENCH_KERNEL:=series}" = series ] ||
	die "BENCH_KERNEL=$BENCH_KERNEL: not with bench-packet-netns (it boots 6.12 beside the series)"
case ${BENCH_KERNEL:=series} in
series) ;;
base) variant_kernel bench-base SKIP_SERIES=1 ;;
both)
	series_kernel=$(kernel_image "$BUILD")
	series_tree=$(git -C "$SRC" rev-parse HEAD)
	variant_kernel bench-base SKIP_SERIES=1
	base_kernel=$(kernel_image "$BUILD")
	base_tree=$(git -C "$SRC" rev-parse HEAD)
	;;
*) die "BENCH_KERNEL=$BENCH_KERNEL: series, base or both" ;;
esac
"$script" --build
# TCG always: figures must not depend on whether this host has KVM.  And
# QEMU's instruction counting unless ICOUNT=0: guest time is then guest
# instructions, so the figures do not move with the host's load as long
# as nothing timed reads the 9p root (scripts/vm/vm-exec.sh).  ICOUNT is
# passed into the guest for the reports.
export ICOUNT=${ICOUNT:-1}
BUILD_KERNEL=$(kernel_image "$BUILD")

# kernel_meta KERNEL TREE [SUFFIX]: the meta lines of one kernel: the
# applied kernel tree (TREE), or, when TREE is empty, the base version of
# another cache's kernel (bench-packet-netns: 6.12); its image and config.
# SUFFIX (-base, -series, -6.12) names the kernel in a run of two.
kernel_meta() {
	local kernel=$1 tree=$2 sfx=${3:-}
	if [ -n "$tree" ]; then
		echo "kernel-tree$sfx: $tree"
	else
		echo "kernel-base$sfx: $(cat "${kernel%/build/*}/base-version")"
	fi
	echo "kernel-image$sfx: $kernel $(sha256sum <"$kernel" | cut -c1-16)"
	echo "kernel-config$sfx: $(sha256sum <"${kernel%/arch/*}/.config" | cut -c1-16)"
}

# write_meta FILE KERNEL NAME KNOB...: what make results cites for a run
# (scripts/results.sh): the command that reproduces it, the revisions of
# this repository and of the applied kernel tree, the kernel image (KERNEL
# "both": the base's and the series', with their trees; "old": the
# series' and 6.12's), the mode, the
# host load.  The knobs' values are those of this run.
write_meta() {
	local file=$1 kernel=$2 name=$3 v cmd
	cmd="make bench-$name ICOUNT=$ICOUNT"
	shift 3
	# SERIES_ONLY (scripts/loop/apply.sh): the series kernel carries
	# those series only.
	[ -z "${SERIES_ONLY:-}" ] || cmd+=" SERIES_ONLY=\"$SERIES_ONLY\""
	for v in "$@"; do
		cmd+=" $v=\"${!v}\""
	done
	{
		echo "command: $cmd"
		echo "repository: $(git -C "$TOP" rev-parse HEAD)$(git -C "$TOP" diff --quiet HEAD -- patches scripts || echo ' (patches/ or scripts/ modified)')"
		echo "patches: $(git -C "$TOP" rev-parse HEAD:patches)"
		if [ "$kernel" = both ]; then
			kernel_meta "$base_kernel" "$base_tree" -base
			kernel_meta "$series_kernel" "$series_tree" -series
		elif [ "$kernel" = old ]; then
			kernel_meta "$series_kernel" "$series_tree" -series
			kernel_meta "$old_kernel" "" -6.12
		else
			kernel_meta "$kernel" "$(git -C "$SRC" rev-parse HEAD)"
		fi
		# the iproute2 companion, built outside this repository
		if [ -n "${BENCH_IP_PATCHED:-}" ]; then
			echo "ip-patched: $BENCH_IP_PATCHED $(sha256sum <"$BENCH_IP_PATCHED" | cut -c1-16) ($("$BENCH_IP_PATCHED" -V))"
		fi
		echo "icount: $ICOUNT"
		echo "load-before: $(cut -d' ' -f1-3 /proc/loadavg)"
	} >"$file"
}
knobs=$(env | sed -n 's/^\(BENCH_[A-Z0-9_]*\)=.*/\1/p' | sort | tr '\n' ' ')
# Two kernels in one run: both (base/, series/) or, for the keepalived
# case, the series kernel and Debian's 6.12, from before per-netns packet
# hooks, built with the same config fragments (series/, 6.12/).
pair=
if [ "$BENCH_KERNEL" = both ]; then
	pair=both boots=(base series)
elif [ "$name" = packet-netns ]; then
	"$script" --old-kernel
	series_kernel=$(kernel_image "$BUILD")
	series_tree=$(git -C "$SRC" rev-parse HEAD)
	old_kernel=$(kernel_image "$CACHE/old-6.12/build")
	pair=old boots=(series 6.12)
	export VM_MEM=${VM_MEM:-4G}
fi
if [ -n "$pair" ]; then
	out=$(new_run "bench-$name")
	# shellcheck disable=SC2086 # one word per knob
	write_meta "$out/meta" "$pair" "$name" $knobs
	for k in "${boots[@]}"; do
		case $k in
		base) kernel=$base_kernel boot=base ;;
		series) kernel=$series_kernel boot=series ;;
		*) kernel=$old_kernel boot=other ;;
		esac
		BENCH_BOOT=$boot VM_OUT=$out/$k KERNEL=$kernel VM_ACCEL=tcg \
			VM_ENV="ICOUNT BENCH_BOOT $knobs" \
			VM_TIMEOUT=${VM_TIMEOUT:-5400} "$TOP/scripts/vm/vm-exec.sh" "$script"
		echo "load-after-$k: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta"
	done
	exit 0
fi
out=$(new_run "bench-$name")
# shellcheck disable=SC2086 # one word per knob
write_meta "$out/meta" "$BUILD_KERNEL" "$name" $knobs
BENCH_BOOT=$BENCH_KERNEL VM_OUT=$out KERNEL=$BUILD_KERNEL VM_ACCEL=tcg \
	VM_ENV="ICOUNT BENCH_BOOT $knobs" \
	VM_TIMEOUT=${VM_TIMEOUT:-5400} "$TOP/scripts/vm/vm-exec.sh" "$script"
echo "load-after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta"
