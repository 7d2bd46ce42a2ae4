#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-flush|bench-demux|bench-ring`: bring the series kernel up to
# date (fetch, apply, build), build the selftest helpers, then run one
# benchmark script inside one VM boot.  Benchmarks report ratios measured
# in the same run; their options come from the environment, passed into the
# guest (see the header of each scripts/bench/bench-*.sh).  bench-flush also
# draws its times against N (scripts/bench/flush-plot.sh).
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

name=${1:?usage: bench.sh flush|demux|ring}
script=$TOP/scripts/bench/bench-$name.sh
[ -x "$script" ] || die "no benchmark $script"
S=$TOP/scripts
kernel_up_to_date
build_selftests
# bench-flush draws its plot after the run: install gnuplot before it.
[ "$name" != flush ] || need_pkgs gnuplot-nox
# Helper programs are built on the host: the guest's root is read-only.
case $name in demux | flush | packet-netns) "$script" --build ;; esac
# TCG always: figures must not depend on whether this host has KVM.  And
# QEMU's instruction counting unless ICOUNT=0: guest time is then guest
# instructions, so the figures do not move with the host's load
# (scripts/vm/vm-exec.sh).  ICOUNT is passed into the guest for the reports.
export ICOUNT=${ICOUNT:-1}
# A results directory of our own: $RUNS/latest may be another run's by the
# time this one ends.
mkdir -p "$RUNS"
out=$(mktemp -d "$RUNS/$(date +%Y%m%d-%H%M%S)-bench-$name.XXXX")
VM_OUT=$out VM_ACCEL=${VM_ACCEL:-tcg} \
	VM_ENV="ICOUNT $(env | sed -n 's/^\(BENCH_[A-Z_]*\)=.*/\1/p' | tr '\n' ' ')" \
	VM_TIMEOUT=${VM_TIMEOUT:-5400} "$S/vm/vm-exec.sh" "$script" || exit
# The flush times against N, log-log, beside the run's output.
[ "$name" != flush ] || "$S/bench/flush-plot.sh" "$out/output"
