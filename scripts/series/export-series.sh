#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Regenerate patches/ from the development branch (`make patches`, a
# maintainers' tool, not a step of the loop).
#
# The kernel changes are commits on branch "dev" of the git worktree $DEV.
# As with `b4 prep`, each series starts with an empty commit that holds its
# cover letter: the subject, the text, and trailers:
#   Series: N-TREE-TOPIC   its folder under patches/; N orders the series
#                          (they apply and are sent in that order), TREE
#                          (net or net-next) is the subject prefix
#   Depends: N-TREE-TOPIC  a series it needs (optional, repeatable)
#   Change-id: ID          b4's change-id, kept across versions (optional)
# The commits after it, up to the next such commit, are its patches.
#
# 1. The selftest sources have their home in selftests/: each one that
#    differs from its copy in $DEV is folded into the commit that added
#    that file (fixup + autosquash).
# 2. Each series is written with `git format-patch --cover-letter --base`
#    from a scratch worktree holding the base, the series it depends on
#    and itself: a series that needs one it does not declare fails there,
#    and its cover letter lists exactly its dependencies as
#    prerequisite-patch-id lines.
# scripts/check/check-static.sh proves that patches/ and selftests/ agree.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

# The series is the user's work: their own git identity, not the loop's.
unset GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
# DEV=dir: another development worktree (a respin kept beside dev) [$CACHE/dev]
DEV=${DEV:-$CACHE/dev}

# trailer COMMIT KEY: the values of trailer KEY in COMMIT's message.
trailer() {
	git -C "$DEV" log -1 --format=%B "$1" | sed -n "s/^$2: //p"
}

# A fresh clone has only patches/: the development branch is made from it
# (each series' cover letter as its first, empty commit, then `git am` of
# its patches), so that the repository alone is enough to change a patch
# and export the series again.  Depends: is read back from the cover
# letter's prerequisite-patch-id lines.
if [ ! -d "$DEV" ]; then
	git -C "$SRC" worktree add -q -b dev "$DEV" "$BASE_BRANCH"
	for d in $(series_dirs); do
		name=${d##*/}
		mapfile -t deps < <(series_deps "$d")
		for dep in "${deps[@]}"; do
			case $dep in
			unknown*) die "$name: $dep" ;;
			esac
		done
		python3 - "$d/0000-cover-letter.patch" "$name" \
			"$(printf '%s\n' "${deps[@]##*/}")" >"$DEV/.cover" <<'EOF'
import re, sys

text, name, deps = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3].split()
subj = re.search(r'^Subject: \[[^]]*\] (.*(?:\n .*)*)$', text, re.M).group(1)
subj = re.sub(r'\n ', ' ', subj)
body = text.split('\n\n', 1)[1]
blurb = re.split(r'^\S.* \(\d+\):$', body, maxsplit=1, flags=re.M)[0]
cid = re.search(r'^change-id: (\S+)$', text, re.M)
print(subj + '\n\n' + blurb.strip() + '\n')
print('Series: ' + name)
for d in deps:
    print('Depends: ' + d)
if cid:
    print('Change-id: ' + cid.group(1))
EOF
		# dated as the cover letter, which the export copies back
		GIT_AUTHOR_DATE=$(sed -n '1,/^$/s/^Date: //p' "$d/0000-cover-letter.patch") \
			git -C "$DEV" commit -q --allow-empty -F .cover
		rm -f "$DEV/.cover"
		for p in $(series_patches "$d"); do
			git -C "$DEV" -c core.hooksPath=/dev/null am -q -3 "$p" ||
				die "patch does not apply: ${p#"$TOP"/}"
		done
	done
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
	git -C "$DEV" add -f "$dst"
	git -C "$DEV" commit -q --fixup="$orig"
	log "folded ${f#"$TOP"/} into $(git -C "$DEV" log --format=%s -1 "$orig")"
	changed=1
done
if [ "$changed" = 1 ]; then
	GIT_SEQUENCE_EDITOR=true git -C "$DEV" rebase -q -i --autosquash "$BASE_BRANCH"
fi

# 2. The series: name -> its cover commit and its patches, in order.
declare -A cover=() commits=()
order=()
name=
for c in $(git -C "$DEV" rev-list --reverse "$BASE_BRANCH..HEAD"); do
	s=$(trailer "$c" Series)
	if [ -n "$s" ]; then
		[ -z "$(git -C "$DEV" diff-tree --no-commit-id -r "$c")" ] ||
			die "the cover commit of $s changes files"
		name=$s
		order+=("$name")
		cover[$name]=$c
		commits[$name]=
		continue
	fi
	[ -n "$name" ] || die "$(git -C "$DEV" log -1 --format=%s "$c"): before the first cover commit"
	commits[$name]+=" $c"
done
[ ${#order[@]} -gt 0 ] || die "no cover commit (a trailer 'Series: N-net-topic') in $DEV"

# A scratch worktree of $SRC, kept between runs: checking out the whole
# tree costs minutes, moving it back to the base rewrites a few files.
wt=$CACHE/export-wt
if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$wt"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$wt" "$BASE_BRANCH"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for name in "${order[@]}"; do
	case "$name" in
	[0-9]*-net-next-*) tree=net-next ;;
	[0-9]*-net-*) tree=net ;;
	*) die "series $name: the folder name must be N-net-TOPIC or N-net-next-TOPIC" ;;
	esac
	git -C "$wt" cherry-pick --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f --detach "$BASE_BRANCH"
	for dep in $(trailer "${cover[$name]}" Depends); do
		[ -n "${cover[$dep]:-}" ] || die "$name depends on $dep, which is not before it"
		# shellcheck disable=SC2086 # a list of commits
		git -C "$wt" cherry-pick --allow-empty ${commits[$dep]} >/dev/null 2>&1 ||
			die "$name: its dependency $dep does not apply on the base"
	done
	start=$(git -C "$wt" rev-parse HEAD)
	# shellcheck disable=SC2086
	git -C "$wt" cherry-pick ${commits[$name]} >/dev/null 2>&1 ||
		die "$name does not apply on the base and the series it depends on (Depends:)"
	git -C "$wt" format-patch -q --zero-commit --cover-letter --base="$BASE_BRANCH" \
		--subject-prefix="PATCH $tree" -o "$tmp/$name" "$start..HEAD"
	git -C "$DEV" log -1 --format=%B "${cover[$name]}" >"$tmp/$name.msg"
	# (dated as its cover commit, so that an unchanged series exports the
	# same files again)
	python3 - "$tmp/$name.msg" "$tmp/$name/0000-cover-letter.patch" \
		"$(git -C "$DEV" log -1 --format=%aD "${cover[$name]}")" <<'EOF'
import re, sys

msg = open(sys.argv[1]).read()
path = sys.argv[2]
new = open(path).read()
new = re.sub(r'^Date: .*$', 'Date: ' + sys.argv[3], new, count=1, flags=re.M)
subj, _, body = msg.partition('\n\n')
trailers = dict(re.findall(r'^(Series|Depends|Change-id): (\S+)$', body, re.M))
blurb = re.sub(r'^(Series|Depends|Change-id): \S+\n?', '', body, flags=re.M)
new = new.replace('*** SUBJECT HERE ***', subj.strip(), 1)
new = new.replace('*** BLURB HERE ***', blurb.strip(), 1)
if 'Change-id' in trailers:
    new = re.sub(r'^(base-commit: \S+)$', r'\1\nchange-id: ' + trailers['Change-id'],
                 new, count=1, flags=re.M)
open(path, 'w').write(new)
EOF
done

# 3. Replace the series folders of patches/ (patches/iproute2/ stays).
for d in $(series_dirs); do
	rm -rf "$d"
done
for name in "${order[@]}"; do
	cp -r "$tmp/$name" "$TOP/patches/$name"
	log "exported $name: $(series_patches "$TOP/patches/$name" | wc -l) patches + cover letter"
done
