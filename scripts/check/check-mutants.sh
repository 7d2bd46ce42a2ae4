#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the selftests fail where they must (`make check-mutants`):
#
#   base    the base kernel without the series (the selftests are still
#           the series', as stable trees run mainline's): every case of
#           mc_autojoin.sh fails but the three the base kernel already
#           handles (no autojoin group is left but on RTM_DELADDR or
#           SIOCDIFADDR of the address itself), which must pass;
#           ifa_flush.sh and ifa_flush must pass with their flag cases
#           skipped (the kernel stores IFA_F_FLUSH on RTM_NEWADDR: it does
#           not know the flag); ifa_order.sh must pass (series 5 keeps
#           what it pins);
#   mutant-count  the series plus scripts/check/mutations/separate/
#           count-not-handed-over.patch alone (a promoted address does not
#           count the secondaries of its subnet, so the walk
#           of a later delete with IFA_F_FLUSH stops too early):
#           ifa_flush must fail (its flag_after_changes case);
#   mutant-autojoin  the series plus scripts/check/mutations/separate/
#           autojoin-delete-keeps-group.patch alone (a plain delete,
#           __inet_del_ifa() and ipv6_del_addr(), keeps the group):
#           those three cases of mc_autojoin.sh must fail;
#   mutant  the series plus the throwaway patches in scripts/check/mutations/
#           (packet_set_ring() does not hook the socket again; the kernel
#           ignores ip_early_demux; fib_del_ifaddr() takes the fast path
#           for a subnet whose primary shares its local address with
#           another primary; a delete with IFA_F_FLUSH still promotes,
#           while RTM_NEWADDR rejects the flag as it should):
#           psock_ring_bind.sh, ip_early_demux.sh, ifa_flush and
#           ifa_flush.sh must fail;
#   mutant-list  the series plus scripts/check/mutations/separate/
#           early-demux-list-ignores-sysctl.patch alone (only the list
#           receive path, ip_list_rcv()/ipv6_list_rcv(), ignores the three
#           knobs; it overlaps the all-paths mutation, hence a kernel of
#           its own): ip_early_demux.sh must fail (its list_rcv cases);
#   mutant-bulk  the series plus scripts/check/mutations/separate/
#           bulk-promotes.patch alone (a bulk RTM_DELADDR deletes the
#           addresses one plain delete after the other, promoting
#           secondaries): ifa_flush and ifa_flush.sh must fail (their bulk
#           cases);
#   mutant-bulk6  the series plus scripts/check/mutations/separate/
#           bulk6-every-address-last.patch alone (an IPv6 bulk RTM_DELADDR
#           takes every address for the last of its prefix, so the first
#           address of a /64 to go deletes the prefix route that deleting
#           one by one in dump order keeps for a later noprefixroute
#           address): ifa_flush.sh must fail its case "IPv6 bulk =
#           deletes in dump order";
#   mutant-add  the series plus scripts/check/mutations/separate/
#           add-primary-behind-all.patch alone (a new primary goes behind
#           every primary, whatever its scope, as if the insert kept no
#           order by scope): ifa_order.sh must fail (its scopes,
#           promotion and SIOCSIFNETMASK cases, each of which adds a
#           primary of a narrower scope than an earlier one);
#   mutant-select  the series kernel and the selftests with
#           scripts/check/mutations/selftests/select-flags-partial-subnet.patch
#           (ifa_flusher -m select deletes a selected primary with
#           IFA_F_FLUSH even when its subnet has unselected addresses, as
#           a flush tool that decides wrongly would): ifa_flush.sh must fail
#           (its filtered cases).
#
# MUTANTS="base mutant-autojoin ..." runs those variants only (default:
# all).  The kernel mutations are applied with `git apply` by
# scripts/loop/apply.sh and are never part of the series.  Each test's full output is kept in the run
# directory; the summary says which tests failed (or skipped) as expected.
# Each variant is built in its own $CACHE/build-<variant>; the series is
# re-applied at the end.
# Not -e: a variant that fails is a result line, the others still run.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

S=$TOP/scripts

# cases_as_expected OUTPUT TEST RC fail-except=R|fail-only=R: whether the
# cases of TEST in OUTPUT (the lines before its "result" line) and its exit
# code RC are as WANT says (see expect); prints what was found.
cases_as_expected() {
	awk -v t="$2" -v rc="$3" -v want="$4" '
		$1 == "result" { if ($2 == t) { done = 1; exit } n = 0; delete name; next }
		/^TEST: .*\[(FAIL| OK |SKIP)\]$/ {
			st = $0; sub(/.*\[/, "", st); sub(/\]$/, "", st)
			nm = $0; sub(/^TEST: /, "", nm); sub(/ *\[[^]]*\]$/, "", nm)
			name[++n] = nm; stat[n] = st
		}
		END {
			kind = want; sub(/=.*/, "", kind)
			re = want; sub(/^[^=]*=/, "", re)
			for (i = 1; i <= n; i++) {
				m = name[i] ~ re
				if (m) matched++
				if (stat[i] == "FAIL")
					failed++
				# a guard (fail-except) passes; the others fail
				if (kind == "fail-except" && m)
					ok_case = stat[i] == " OK "
				else
					ok_case = stat[i] == "FAIL" || kind == "fail-only" && !m
				if (kind == "fail-except" && m && ok_case)
					guards++
				if (!ok_case)
					bad = bad (bad == "" ? "" : "; ") name[i] " [" stat[i] "]"
			}
			ok = done && rc == 1 && n > 0 && matched > 0 && bad == ""
			printf "%d of %d cases fail", failed, n
			if (kind == "fail-except")
				printf ", the %d matching /%s/ pass", guards, re
			else
				printf ", including the %d matching /%s/", matched, re
			if (!ok)
				printf "; expected %s, exit %s%s", want, rc == "" ? "<none>" : rc,
					bad == "" ? "" : ", not as expected: " bad
			exit !ok
		}' "$1"
}

# skips OUTPUT TEST: whether TEST's output in OUTPUT (the lines before its
# "result" line) has a SKIP.
skips() {
	awk -v t="$2" '$1 == "result" { if ($2 == t) exit; n = 0; next }
		/SKIP/ { n++ } END { exit !n }' "$1"
}

# expect VARIANT "TEST:WANT ..." [VAR=VALUE...]: build VARIANT (apply.sh
# with the variables), run each TEST in one VM boot; WANT is "fail" (exit
# 1), "pass" (exit 0, no case skipped), "skip" (exit 0 or 4 with at least
# one SKIP in its output: the flag cases on a kernel without the flag),
# or per case (the "TEST: NAME
# [FAIL]" lines of lib.sh's log_test), with an extended regular expression
# R on the case names (no blank in it):
#   fail-except=R  exit 1; every case fails but those R matches, which pass;
#   fail-only=R    exit 1; the cases R matches (at least one) fail.
expect() {
	local variant=$1 want tests=() t r
	[ -z "${MUTANTS:-}" ] || [[ " $MUTANTS " == *" $variant "* ]] || return 0
	shift
	local -A wants=()
	for t in $1; do
		tests+=("${t%%:*}")
		wants[${t%%:*}]=${t#*:}
	done
	shift
	# A build tree of its own per variant: $BUILD keeps the series kernel.
	# SELFTEST_PATCH=file: the series kernel, the selftests patched in a
	# copy of selftests/.
	local BUILD=$BUILD tdir=$TOP/selftests spatch=
	case " $* " in
	*" SELFTEST_PATCH="*) spatch=${*#*SELFTEST_PATCH=} spatch=${spatch%% *} ;;
	esac
	if [ -n "$spatch" ]; then
		tdir=$(mktemp -d "$CACHE/selftests-$variant.XXXX")
		cp -a "$TOP/selftests/." "$tdir/"
		if ! (cd "$tdir" && git apply -p1 "$spatch"); then
			ktap_result 1 "$variant: $spatch does not apply"
			return 1
		fi
	elif ! variant_kernel "$variant" "$@"; then
		ktap_result 1 "$variant: no kernel"
		return 1
	fi
	# The selftests are the series' on every kernel, the base one too
	# (stable trees run mainline's selftests on their kernels): after the
	# base kernel is built, the series is applied again for them.
	if [[ " $* " == *" SKIP_SERIES=1 "* ]] &&
	   ! step "apply (series, for the selftests)" "$S/loop/apply.sh"; then
		ktap_result 1 "$variant: the series does not apply"
		return 1
	fi
	# Built as mainline builds them (build_selftests_tree).
	if ! build_selftests_tree "$tdir" >/dev/null; then
		ktap_result 1 "$variant: the selftests do not build"
		return 1
	fi
	out=$(new_run "$variant")
	# One line per test: "result <name> <exit code>", after its output.
	VM_OUT=$out "$S/vm/vm-exec.sh" bash -c \
		"cd '$tdir' && for t in ${tests[*]}; do ./\$t; echo \"result \$t \$?\"; done" \
		>/dev/null 2>&1
	for t in "${tests[@]}"; do
		r=$(awk -v t="$t" '$1 == "result" && $2 == t { print $3 }' "$out/output")
		want=${wants[$t]}
		if [[ $want == fail-* ]]; then
			r=$(cases_as_expected "$out/output" "$t" "$r" "$want")
			ktap_result $? "$variant: $t: $r (output: $out/output)"
		elif [ "$want" = fail ] && [ "$r" = 1 ]; then
			ktap_result 0 "$variant: $t fails as it must (output: $out/output)"
		elif [ "$want" = pass ] && [ "$r" = 0 ] && ! skips "$out/output" "$t"; then
			ktap_result 0 "$variant: $t passes as it must (output: $out/output)"
		elif [ "$want" = skip ] && { [ "$r" = 0 ] || [ "$r" = 4 ]; } &&
			skips "$out/output" "$t"; then
			ktap_result 0 "$variant: $t passes with its flag cases skipped (output: $out/output)"
		else
			ktap_result 1 "$variant: $t exited ${r:-<none>}, expected $want (output: $out/output)"
		fi
	done
	[ -z "$spatch" ] || rm -rf "$tdir"
}

# The cases of mc_autojoin.sh that the base kernel passes.
MC_GUARDS='address.deleted|SIOCDIFADDR'
expect base "mc_autojoin.sh:fail-except=$MC_GUARDS ifa_flush.sh:skip ifa_flush:skip
	ifa_order.sh:pass" SKIP_SERIES=1
expect mutant "psock_ring_bind.sh:fail ip_early_demux.sh:fail
	ifa_flush:fail ifa_flush.sh:fail" \
	EXTRA_PATCHES="$(echo "$TOP"/scripts/check/mutations/*.patch)"
expect mutant-list "ip_early_demux.sh:fail" \
	EXTRA_PATCHES="$TOP/scripts/check/mutations/separate/early-demux-list-ignores-sysctl.patch"
expect mutant-bulk "ifa_flush:fail ifa_flush.sh:fail" \
	EXTRA_PATCHES="$TOP/scripts/check/mutations/separate/bulk-promotes.patch"
expect mutant-bulk6 "ifa_flush.sh:fail-only=IPv6.bulk.=.deletes.in.dump.order" \
	EXTRA_PATCHES="$TOP/scripts/check/mutations/separate/bulk6-every-address-last.patch"
expect mutant-count "ifa_flush:fail" \
	EXTRA_PATCHES="$TOP/scripts/check/mutations/separate/count-not-handed-over.patch"
expect mutant-autojoin "mc_autojoin.sh:fail-only=$MC_GUARDS" \
	EXTRA_PATCHES="$TOP/scripts/check/mutations/separate/autojoin-delete-keeps-group.patch"
expect mutant-add "ifa_order.sh:fail-only=^(scopes|promotion|SIOCSIFNETMASK):" \
	EXTRA_PATCHES="$TOP/scripts/check/mutations/separate/add-primary-behind-all.patch"
expect mutant-select "ifa_flush.sh:fail" \
	SELFTEST_PATCH="$TOP/scripts/check/mutations/selftests/select-flags-partial-subnet.patch"
"$S/loop/apply.sh" >/dev/null 2>&1 || true
ktap_summary check-mutants
