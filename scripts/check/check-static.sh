#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks of the series, run by `make check` after scripts/loop/apply.sh
# (so $SRC holds the applied series).  Each check prints one KTAP result
# line; the lines are also written to $STATIC_KTAP for scripts/loop/report.sh.
#
#  - checkpatch.pl --strict --codespell --max-line-length=80 on each patch
#  - Signed-off-by on each patch, each series' cover letter filled in
#  - each series applies on the base with only the series its cover letter
#    names as prerequisites (one topic per series, the net fix first)
#  - shellcheck on scripts/, selftests/ and .ci/run
#  - the selftest sources in selftests/ are identical to what the series
#    adds under tools/testing/selftests/net/ (and every one is in it)
#  - the selftest programs build with gcc -m32 (-Werror)
#  - the netlink specs the series changes generate (YNL C and rst) and
#    the C compiles without warnings
#  - MAINTAINERS-snippet is what scripts/series/gen-maintainers.sh makes now
#  - every published table is what scripts/results.sh makes from its run
#  - entries the series adds to net/Makefile, net/config, net/.gitignore
#    and selftests/{Makefile,config,.gitignore} are in sorted order
# Not -e: a check that fails is a result line, the others still run.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

need_pkgs "${PKGS_CHECK[@]}"
KTAP_FILE=${STATIC_KTAP:-$CACHE/static.ktap}
: >"$KTAP_FILE"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t patches < <(series_patches)

spell=$(dpkg -L codespell 2>/dev/null | grep -m1 'codespell_lib/data/dictionary.txt$')
# checkpatch takes ~10 s a patch: its verdict is cached per patch content.
cpcache=$CACHE/checkpatch
mkdir -p "$cpcache"
for p in "${patches[@]}"; do
	name=${p#"$TOP"/patches/}
	key=$cpcache/$( (cat "$p"; sha256sum "$SRC/scripts/checkpatch.pl") | sha256sum | cut -d' ' -f1)
	if [ -f "$key.rc" ]; then
		cp "$key.out" "$tmp/cp"
		rc=$(cat "$key.rc")
	else
		# Debian's python3 has ply for spdxcheck.py (a pyenv one may not).
		PATH=/usr/bin:$PATH "$SRC/scripts/checkpatch.pl" --strict --codespell \
			${spell:+--codespellfile "$spell"} --max-line-length=80 \
			--show-types -q "$p" >"$tmp/cp" 2>&1
		rc=$?
		cp "$tmp/cp" "$key.out"
		echo "$rc" >"$key.rc"
	fi
	# Known false positives: codespell's "iif" is the input interface
	# field of the fib tracepoints, which the early demux test filters on;
	# the Debian stand-in base is one commit without history, so the
	# commit a Fixes: tag names is unknown there (a base with history, a
	# real tree given with KSRC=, checks it).
	fp="^(CHECK|WARNING):TYPO_SPELLING: 'iif' may be misspelled"
	[ "$(git -C "$SRC" rev-list --max-count=2 --count "$BASE_BRANCH")" -gt 1 ] ||
		fp="$fp|^WARNING:UNKNOWN_COMMIT_ID: "
	# A patch that only adds selftests under $NETDIR needs no MAINTAINERS
	# change: NETWORKING [GENERAL] has "F: $NETDIR/".  (The series that
	# apply on the base alone must not touch MAINTAINERS: their F: lines
	# would sit next to the other series' and conflict.)
	if ! grep -q '^+++ b/MAINTAINERS' "$p" &&
		! grep '^+++ b/' "$p" | grep -q -v "^+++ b/$NETDIR/" &&
		grep -q "^F:	$NETDIR/\$" "$SRC/MAINTAINERS"; then
		fp="$fp|^WARNING:FILE_PATH_CHANGES: "
	fi
	grep -v -E "$fp" "$tmp/cp" |
		grep -q -e '^WARNING' -e '^ERROR' -e '^CHECK' || rc=0
	ktap_result "$rc" "static: checkpatch $name" "$tmp/cp"
	grep -q '^Signed-off-by: ' "$p"
	ktap_result $? "static: signed-off-by $name"
done
# Each series alone: its cover letter is written, and its patches apply
# with `git am` on the base plus the series whose patches its cover letter
# names as prerequisite-patch-id (matched by `git patch-id --stable` of
# the patch files), in a scratch worktree shared with `make patches`.
wt=$CACHE/export-wt
if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$wt"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$wt" "$BASE_BRANCH"
fi
for d in $(series_dirs); do
	c=$d/0000-cover-letter.patch
	[ -f "$c" ] && ! grep -q -e '\*\*\* SUBJECT HERE' -e '\*\*\* BLURB HERE' "$c"
	ktap_result $? "static: cover letter written ${d##*/}"
	mapfile -t deps < <(series_deps "$d")
	rc=0
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f --detach "$BASE_BRANCH" >"$tmp/alone" 2>&1 || rc=1
	for p in $(series_patches "${deps[@]}" "$d"); do
		[ "$rc" -eq 0 ] || break
		git -C "$wt" -c core.hooksPath=/dev/null am -q -3 "$p" >>"$tmp/alone" 2>&1 ||
			{ echo "${p#"$TOP"/} does not apply" >>"$tmp/alone"; rc=1; }
	done
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	ktap_result "$rc" "static: ${d##*/} applies on the base${deps[0]:+ after ${deps[*]##*/}}" "$tmp/alone"
done

# Our scripts only: selftests/lib.sh is a link to the kernel's.
mapfile -t shells < <(cd "$TOP" && find scripts selftests .ci -maxdepth 2 -type f \
	\( -name '*.sh' -o -name run \) | sort)
(cd "$TOP" && shellcheck -x -P selftests -e SC1091 "${shells[@]}") >"$tmp/sc" 2>&1
ktap_result $? "static: shellcheck (${#shells[@]} scripts)" "$tmp/sc"

# The tooling keeps its promises: every scripts/ path the repository names
# exists (ours, or the kernel's in $SRC: scripts/checkpatch.pl; globs and
# braces expanded; the patches name kernel paths only, and the raw outputs
# under Documentation/runs/ are records, left out); `make help` lists every
# scripts/check/check-*.sh (but this one) and scripts/bench/bench-*.sh and
# nothing else
# (the Makefile's pattern rules run them); every script sets -euo pipefail,
# or -uo pipefail under a comment "Not -e:" that says why.
rc=0
: >"$tmp/paths"
# shellcheck disable=SC2016 # perl's $ARGV and $1 below, not the shell's
while IFS=: read -r file tok; do
	tok=${tok%.}
	tok=${tok//\$/}	# make's $*, $@ and %: any name
	tok=${tok//%/*}
	found=
	for cand in $(eval "echo $tok"); do
		if compgen -G "$TOP/$cand" >/dev/null || compgen -G "$SRC/$cand" >/dev/null; then
			found=1
			break
		fi
	done
	[ -n "$found" ] || { echo "$file: $tok does not exist" >>"$tmp/paths"; rc=1; }
done < <(cd "$TOP" && git ls-files -z -- . ':!patches' ':!Documentation/runs' |
	xargs -0 perl -ne '
		print "$ARGV:$1\n" while m{(?<![\w./\$\@{}-])(scripts/(?:[\w./*{},%-]|\$[*\@])*\w)}g' |
	sort -u)
ktap_result "$rc" "static: every scripts/ path named in the repository exists" "$tmp/paths"
# Every README.md or Documentation/*.md the repository names exists, and so
# does the section a "#anchor" after the name (or, in Markdown, a link to
# "#anchor" alone) names: GitHub's anchor of a heading, lower case,
# punctuation dropped, spaces as hyphens, "-1", "-2" after repeats.
: >"$tmp/docs"
# shellcheck disable=SC2016 # perl's variables, not the shell's
(cd "$TOP" && git ls-files -z -- . ':!patches' ':!Documentation/runs' ':!*.png' ':!*.svg' |
	xargs -0 perl -e '
		my %cache;
		sub anchors {
			my ($f) = @_;
			return $cache{$f} if exists $cache{$f};
			open(my $h, "<", $f) or return $cache{$f} = undef;
			my (%a, %n, $fence);
			local $_;
			while (<$h>) {
				$fence = !$fence if /^\s*```/;
				next if $fence || !/^#{1,6}\s+(.*?)\s*$/;
				(my $s = lc $1) =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;
				$s =~ s/[^\w\- ]//g;
				$s =~ tr/ /-/;
				$a{$n{$s} ? "$s-$n{$s}" : $s} = 1;
				$n{$s}++;
			}
			return $cache{$f} = \%a;
		}
		while (<>) {
			my ($ln, @refs) = ($.);
			push @refs, [$1, $2] while m{(?<![\w./-])((?:README|Documentation/[\w-]+)\.md)(?:#([\w-]+))?}g;
			push @refs, [$ARGV, $1] while $ARGV =~ /\.md$/ && m{\]\(#([\w-]+)\)}g;
			for (@refs) {
				my ($f, $s) = @$_;
				my $a = anchors($f);
				if (!$a) {
					print "$ARGV:$ln: $f does not exist\n";
				} elsif (defined $s && !$a->{$s}) {
					print "$ARGV:$ln: $f#$s: no such section\n";
				}
			}
		} continue {
			close ARGV if eof(ARGV);
		}') >"$tmp/docs"
rc=0
[ -s "$tmp/docs" ] && rc=1
ktap_result "$rc" "static: every Documentation/ file and section named exists" "$tmp/docs"
rc=0
: >"$tmp/help"
for f in "$TOP"/scripts/check/check-*.sh "$TOP"/scripts/bench/bench-*.sh; do
	t=$(basename "$f" .sh)
	[ "$t" != check-static ] || continue	# part of make check
	grep -qE "^##   $t " "$TOP/Makefile" || { echo "make help lacks $t" >>"$tmp/help"; rc=1; }
done
while read -r t; do
	[ -x "$TOP/scripts/${t%%-*}/$t.sh" ] || { echo "make help names $t: no scripts/${t%%-*}/$t.sh" >>"$tmp/help"; rc=1; }
done < <(sed -n 's/^##   \(\(check\|bench\)-[a-z0-9-]*\) .*/\1/p' "$TOP/Makefile")
ktap_result "$rc" "static: make help lists each check-* and bench-* script" "$tmp/help"
rc=0
: >"$tmp/set"
for f in "${shells[@]}"; do
	# selftests: kernel style; lib.sh: sourced, the caller sets them
	case $f in selftests/* | scripts/lib.sh) continue ;; esac
	first=$(grep -m1 -n '^set -' "$TOP/$f" || true)
	case ${first#*:} in
	"set -euo pipefail") ;;
	"set -uo pipefail")
		sed -n "1,${first%%:*}p" "$TOP/$f" | grep -q '^# Not -e: ' ||
			{ echo "$f: set -uo pipefail without a '# Not -e:' reason" >>"$tmp/set"; rc=1; } ;;
	*) echo "$f: ${first:+${first#*:}}${first:-no set line}" >>"$tmp/set"; rc=1 ;;
	esac
done
ktap_result "$rc" "static: shell settings (set -euo pipefail, or a reason)" "$tmp/set"

# kernel-doc: no new warning in the kernel files the series touches.
rc=0
: >"$tmp/kdoc"
for f in $(git -C "$SRC" diff --name-only "$BASE_BRANCH..$SERIES_BRANCH" -- '*.c' '*.h' |
	grep -v '^tools/'); do
	mkdir -p "$tmp/base/$(dirname "$f")"
	git -C "$SRC" show "$BASE_BRANCH:$f" >"$tmp/base/$f"
	for side in base series; do
		if [ "$side" = base ]; then
			(cd "$tmp/base" && PATH=/usr/bin:$PATH "$SRC/scripts/kernel-doc" -none -Wall "$f")
		else
			(cd "$SRC" && PATH=/usr/bin:$PATH scripts/kernel-doc -none -Wall "$f")
		fi 2>&1 | sed -E 's/:[0-9]+ / /' | sort -u >"$tmp/kdoc.$side"
	done
	comm -13 "$tmp/kdoc.base" "$tmp/kdoc.series" >>"$tmp/kdoc"
done
[ -s "$tmp/kdoc" ] && rc=1
ktap_result "$rc" "static: kernel-doc: no new warnings" "$tmp/kdoc"

# YNL, as netdev's CI builds tools/net/ynl: each netlink spec the series
# changes validates against its schema and generates C that compiles
# without warnings, and its rst, in a worktree of the series
# ($CACHE/ynl-wt; the generator writes next to its sources).
mapfile -t specs < <(git -C "$SRC" diff --name-only "$BASE_BRANCH..$SERIES_BRANCH" -- \
	'Documentation/netlink/specs/*.yaml')
if [ ${#specs[@]} -ne 0 ]; then
	wt=$CACHE/ynl-wt
	if ! git -C "$wt" checkout -q --detach "$SERIES_BRANCH" 2>/dev/null; then
		rm -rf "$wt"
		git -C "$SRC" worktree prune
		git -C "$SRC" worktree add -q --detach "$wt" "$SERIES_BRANCH"
	fi
	git -C "$wt" clean -fdxq tools/net/ynl
	targets=()
	for f in "${specs[@]##*/}"; do
		targets+=("${f%.yaml}-user.o" "${f%.yaml}.rst")
	done
	PATH=/usr/bin:$PATH make -C "$wt/tools/net/ynl/generated" "${targets[@]}" >"$tmp/ynl" 2>&1 &&
		! grep -q -i -e warning -e error "$tmp/ynl"
	ktap_result $? "static: ynl: ${specs[*]##*/} generate C and rst, C compiles cleanly" "$tmp/ynl"
fi

# The selftest programs also build as 32-bit programs (netdev's CI builds
# i386 too): selftests/Makefile's own rules with CC="gcc -m32", against
# the series' uapi headers.  These run before scripts/loop/build.sh, so the
# headers of $BUILD may still be the previous series': install the
# applied tree's into $CACHE/build-hdr (incremental, a few seconds).
# The YNL library is built in $SRC/tools/net/ynl (the net/ selftests'
# ynl.mk), whose objects do not know which compiler made them: cleaned
# before the 32-bit build and after it, so that neither build links the
# other's objects.
rc=0
mkdir -p "$tmp/m32"
{ make -s -C "$SRC/tools/net/ynl" clean &&
	build_selftests_tree "$TOP/selftests" OUTPUT="$tmp/m32" CC="gcc -m32"; } \
	>"$tmp/m32.log" 2>&1 || rc=1
make -s -C "$SRC/tools/net/ynl" clean >>"$tmp/m32.log" 2>&1 || rc=1
ktap_result "$rc" "static: selftests build for 32-bit (gcc -m32, -Werror)" "$tmp/m32.log"

# selftests/ <-> series.
rc=0
: >"$tmp/sync"
shopt -s nullglob
for f in "$TOP"/selftests/*.[ch] "$TOP"/selftests/*.sh; do
	[ -L "$f" ] && continue
	dst=$SRC/$NETDIR/$(basename "$f")
	if [ ! -f "$dst" ]; then
		echo "${f#"$TOP"/} is not added by the series" >>"$tmp/sync"
		rc=1
	elif ! diff -u "$dst" "$f" >>"$tmp/sync"; then
		rc=1
	fi
done
ktap_result "$rc" "static: selftests/ identical to the series" "$tmp/sync"

# MAINTAINERS-snippet is generated from the series on the stand-in base:
# it must be current (another tree's MAINTAINERS may name others).
if [ -z "${KSRC:-}" ]; then
	"$TOP/scripts/series/gen-maintainers.sh" "$tmp/snippet" >/dev/null 2>&1 &&
		diff -u "$TOP/MAINTAINERS-snippet" "$tmp/snippet" >"$tmp/snippet.diff"
	ktap_result $? "static: MAINTAINERS-snippet current (make maintainers)" "$tmp/snippet.diff"
fi

# Every published table is what make results generates from a committed
# run, and every number of the prose is generated, of a named class or
# verified (scripts/check/figures.allow); its pending entries pass with a
# warning, shown here.
"$TOP/scripts/results.sh" --check >"$tmp/results" 2>&1
rc=$?
ktap_result "$rc" "static: published figures generated from committed runs (make results)" "$tmp/results"
[ "$rc" -ne 0 ] || sed -n 's/^WARNING: /# WARNING: /p' "$tmp/results"

# Added entries must sit in order between their neighbours.
sorted_added() {
	local file=$1 added=$2 line prev next ln
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		ln=$(grep -nxF -- "$line" "$file" | head -n 1 | cut -d: -f1)
		[ -n "$ln" ] || continue
		prev=$(sed -n "$((ln - 1))p" "$file")
		next=$(sed -n "$((ln + 1))p" "$file")
		for pair in "$prev|$line" "$line|$next"; do
			a=${pair%%|*}
			b=${pair#*|}
			# Only compare list items of the same shape.
			[ "${a:0:1}" = "${b:0:1}" ] || continue
			case "$a$b" in *'end of'* | *':='* | '#'*) continue ;; esac
			if [[ "$a" > "$b" ]]; then
				echo "$file: '$a' before '$b'"
				return 1
			fi
		done
	done <"$added"
}
rc=0
: >"$tmp/sort"
for f in $NETDIR/Makefile $NETDIR/config $NETDIR/.gitignore; do
	git -C "$SRC" diff "$BASE_BRANCH..$SERIES_BRANCH" -- "$f" |
		sed -n 's/^+\([^+]\)/\1/p' >"$tmp/added"
	LC_ALL=C sorted_added "$SRC/$f" "$tmp/added" >>"$tmp/sort" || rc=1
done
for f in selftests/config selftests/.gitignore; do
	LC_ALL=C sort -c "$TOP/$f" >>"$tmp/sort" 2>&1 || rc=1
done
LC_ALL=C awk '/:= \\$/ { inlist = 1; prev = ""; next }
	/^# end/ { inlist = 0 }
	inlist { if (prev != "" && prev > $1) { print FILENAME ": " prev " before " $1; bad = 1 }
		 prev = $1 }
	END { exit bad }' "$TOP/selftests/Makefile" >>"$tmp/sort" || rc=1
ktap_result "$rc" "static: Makefile, config and .gitignore entries sorted" "$tmp/sort"

ktap_summary "static checks"
