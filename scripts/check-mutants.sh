#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the selftests fail where they must (`make check-mutants`):
#
#   base    the base kernel without the series: ifa_flush.sh must fail
#           (IFA_F_FLUSH is ignored there, so the primary's secondaries are
#           promoted), and so must ifa_subnet_del.sh (autojoin groups of
#           secondaries and of expired addresses are not left; its
#           "plain = secfirst" comparison passes there);
#   mutant  the series plus the throwaway patches in scripts/mutations/
#           (packet_set_ring() does not hook the socket again; the kernel
#           ignores ip_early_demux; fib_del_ifaddr() takes the fast path
#           for a subnet whose primary shares its local address with
#           another primary): psock_ring_bind.sh, ip_early_demux.sh and
#           ifa_subnet_del.sh must fail.
#
# The mutations are applied with `git apply` by scripts/apply.sh and are
# never part of the series.  Each test's full output is kept in the run
# directory; the summary says which tests failed as expected.  Each variant
# is built in its own $CACHE/build-<variant>; the series is re-applied at
# the end.
set -u
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
lock_tree

S=$TOP/scripts
rc=0
expect_fail() {
	local variant=$1 tests=$2 out t r
	shift 2
	# A build tree of its own per variant: $BUILD keeps the series kernel,
	# and ccache makes the first build of a variant cheap.
	local BUILD=$CACHE/build-$variant
	export BUILD
	step "apply ($variant)" env "$@" "$S/apply.sh" || return 1
	step "build ($variant)" "$S/build.sh" || return 1
	build_selftests || return 1
	out=$(mktemp -d "$RUNS/$(date +%Y%m%d-%H%M%S)-$variant.XXXX")
	# One line per test: "result <name> <exit code>".
	VM_OUT=$out "$S/vm-run.sh" bash -c \
		"cd '$TOP/selftests' && for t in $tests; do ./\$t; echo \"result \$t \$?\"; done" \
		>/dev/null 2>&1
	for t in $tests; do
		r=$(awk -v t="$t" '$1 == "result" && $2 == t { print $3 }' "$out/output")
		case "$r" in
		1) echo "ok - $variant: $t fails as it must (output: $out/output)" ;;
		*)
			echo "not ok - $variant: $t exited ${r:-<none>}, expected 1 (output: $out/output)"
			rc=1
			;;
		esac
	done
}

expect_fail base "ifa_flush.sh ifa_subnet_del.sh" SKIP_SERIES=1
expect_fail mutant "psock_ring_bind.sh ip_early_demux.sh ifa_subnet_del.sh" \
	EXTRA_PATCHES="$(echo "$TOP"/scripts/mutations/*.patch)"
"$S/apply.sh" >/dev/null 2>&1 || true
exit "$rc"
