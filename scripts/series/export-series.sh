#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate patches/ from the development branch (maintainers' tool, not a
# step of the loop).
#
# The kernel changes are developed as commits on branch "dev" of the git
# worktree $DEV (created from $BASE_BRANCH).  The selftest sources have their
# home in selftests/*.[ch] and selftests/*.sh: before exporting, each one that
# differs from its copy under tools/testing/selftests/net/ in $DEV is folded
# into the commit that added that file (fixup + autosquash).  Then
# `git format-patch --cover-letter --base` writes patches/, keeping the cover
# letter's subject and text from the previous patches/0000-cover-letter.patch.
# scripts/check/check-static.sh proves that patches/ and selftests/ agree.
set -eu
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

# The series is the user's work: their own git identity, not the loop's.
unset GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
DEV=${DEV:-$CACHE/dev}
PREFIX=${PREFIX:-"PATCH net-next"}
NETDIR=tools/testing/selftests/net

# A fresh clone has only patches/: the development branch is made from it
# (`git am` of the series onto the base), so that the repository alone is
# enough to change a kernel patch and export the series again.
if [ ! -d "$DEV" ]; then
	git -C "$SRC" worktree add -q -b dev "$DEV" "$BASE_BRANCH"
	while read -r p; do
		git -C "$DEV" -c core.hooksPath=/dev/null am -q -3 "$p" ||
			die "patch does not apply: ${p#"$TOP"/}"
	done < <(series_patches)
	log "created $DEV (branch dev): $BASE_BRANCH + patches/; commit kernel changes there"
fi
git -C "$DEV" diff --quiet HEAD || die "$DEV has uncommitted changes"

# 1. Fold the selftest sources into the commits that added them.
shopt -s nullglob
changed=0
for f in "$TOP"/selftests/*.[ch] "$TOP"/selftests/*.sh; do
	[ -L "$f" ] && continue
	dst=$NETDIR/$(basename "$f")
	if [ ! -f "$DEV/$dst" ]; then
		log "not in the series yet: ${f#"$TOP"/} (add it with a commit in $DEV)"
		continue
	fi
	cmp -s "$f" "$DEV/$dst" && continue
	cp "$f" "$DEV/$dst"
	orig=$(git -C "$DEV" log --format=%H --diff-filter=A -1 -- "$dst")
	git -C "$DEV" commit -q --fixup="$orig" -- "$dst"
	log "folded ${f#"$TOP"/} into $(git -C "$DEV" log --format=%s -1 "$orig")"
	changed=1
done
if [ "$changed" = 1 ]; then
	GIT_SEQUENCE_EDITOR=true git -C "$DEV" rebase -q -i --autosquash "$BASE_BRANCH"
fi

# 2. Export, keeping the cover letter text.
cover=$TOP/patches/0000-cover-letter.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$DEV" format-patch -q --cover-letter --base="$BASE_BRANCH" \
	--subject-prefix="$PREFIX" -o "$tmp" "$BASE_BRANCH..dev"
if [ -f "$cover" ]; then
	python3 - "$cover" "$tmp/0000-cover-letter.patch" <<'EOF'
import re, sys

old = open(sys.argv[1]).read()
new = open(sys.argv[2]).read()
subj = re.search(r'^Subject: \[[^]]*\] (.*)$', old, re.M).group(1)
# The blurb: from the first blank line after the headers to the shortlog.
body = old.split('\n\n', 1)[1]
blurb = re.split(r'^\S.* \(\d+\):$', body, maxsplit=1, flags=re.M)[0]
new = new.replace('*** SUBJECT HERE ***', subj, 1)
new = new.replace('*** BLURB HERE ***\n\n', blurb, 1)
# b4's change-id (as "b4 prep" writes it after base-commit): kept from the
# previous cover letter, so that every version of the series has the same.
cid = re.search(r'^change-id: \S+$', old, re.M)
if cid:
    new = re.sub(r'^(base-commit: \S+)$', r'\1\n' + cid.group(0), new,
                 count=1, flags=re.M)
open(sys.argv[2], 'w').write(new)
EOF
fi
find "$TOP/patches" -maxdepth 1 -name '*.patch' -delete
cp "$tmp"/*.patch "$TOP/patches/"
log "exported $(git -C "$DEV" rev-list --count "$BASE_BRANCH..dev") patches + cover letter to patches/"
