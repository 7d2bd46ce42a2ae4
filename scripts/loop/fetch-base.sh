#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 1: provide the base kernel tree as a git repository in $SRC with the
# branch $BASE_BRANCH.
#
#  KSRC=/path/to/net-next: a shared clone of the user's tree (their checkout,
#                          branches and index are never written to).
#  otherwise:              the newest Debian linux-source-7.x package,
#                          downloaded through a private apt state directory
#                          whose mirror is taken from this machine's own apt
#                          configuration, imported as one base commit.
# Both are cached in $CACHE; after the first run this step works offline.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

from_ksrc() {
	local head
	git -C "$KSRC" rev-parse --git-dir >/dev/null 2>&1 ||
		die "KSRC=$KSRC is not a git tree"
	if [ ! -f "$KSRC/Makefile" ] || [ ! -f "$KSRC/net/ipv4/devinet.c" ]; then
		die "KSRC=$KSRC is not a kernel tree (no net/ipv4/devinet.c)"
	fi
	[ -z "$(git -C "$KSRC" status --porcelain --untracked-files=no)" ] ||
		die "KSRC=$KSRC has uncommitted changes; commit or stash them first"
	head=$(git -C "$KSRC" rev-parse HEAD)
	if [ -d "$SRC/.git" ] && [ "$(cat "$SRC/.git/netseries-origin" 2>/dev/null)" != "$KSRC" ]; then
		die "$SRC holds another base; use another CACHE= or remove $SRC"
	fi
	if [ ! -d "$SRC/.git" ]; then
		log "shared clone of $KSRC into $SRC"
		git clone -q --shared --no-checkout "$KSRC" "$SRC"
		echo "$KSRC" >"$SRC/.git/netseries-origin"
	fi
	git -C "$SRC" fetch -q "$KSRC" "$head"
	# The clone's HEAD may name a branch called $BASE_BRANCH (the user's
	# default branch): detach it, or the branch cannot be moved.
	git -C "$SRC" update-ref --no-deref HEAD "$head"
	git -C "$SRC" branch -f "$BASE_BRANCH" "$head"
	git -C "$SRC" describe --always "$head" >"$CACHE/base-version"
	log "base: $KSRC at $(cat "$CACHE/base-version")"
}

download_deb() {
	local pkg ver

	exec 7>"$CACHE/apt.lock"
	flock 7
	apt_private_update
	pkg=$({ apt_private apt-cache search --names-only "$BASE_PKG_RE" 2>/dev/null || true; } |
		cut -d' ' -f1 | sort -V | tail -n 1)
	[ -n "$pkg" ] || die "no $BASE_PKG_RE package found (no reachable package mirror?)"
	ver=$(apt_private_newest "$pkg")
	log "newest base package: $pkg $ver"
	echo "$pkg $ver $(apt_private_download "$pkg" "$ver" all)"
	exec 7>&-
}

from_debian() {
	local pkg ver deb tmp tarball date
	if [ -d "$SRC/.git" ] && git -C "$SRC" rev-parse -q --verify "$BASE_BRANCH" >/dev/null; then
		log "base cached: $(cat "$CACHE/base-version")"
		return 0
	fi
	need_pkgs git xz-utils
	read -r pkg ver deb < <(download_deb)
	tmp=$(mktemp -d "$CACHE/unpack.XXXXXX")
	log "extracting $deb"
	dpkg-deb -x "$deb" "$tmp"
	tarball=$(find "$tmp/usr/src" -name 'linux-source-*.tar.xz' | head -n 1)
	[ -n "$tarball" ] || die "$deb holds no linux-source tarball"
	rm -rf "$SRC"
	mkdir -p "$SRC"
	tar -C "$SRC" --strip-components=1 -xJf "$tarball"
	rm -rf "$tmp"
	log "importing into git"
	git -C "$SRC" init -q -b "$BASE_BRANCH"
	git -C "$SRC" add -A -f
	# The date of the tarball's files, not the time of the import: every
	# machine then imports the same commit, the base-commit of patches/.
	date="@$(stat -c %Y "$SRC/Makefile") +0000"
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		git -C "$SRC" -c core.hooksPath=/dev/null commit -q \
		--author="$GIT_COMMITTER_NAME <$GIT_COMMITTER_EMAIL>" \
		-m "Linux $(src_kernelversion) (Debian $pkg $ver)" \
		-m "Imported unmodified from the Debian package as the stand-in base."
	echo "Debian $pkg $ver" >"$CACHE/base-version"
	log "base: $(cat "$CACHE/base-version")"
}

mkdir -p "$CACHE"
if [ -n "${KSRC:-}" ]; then
	from_ksrc
else
	from_debian
fi
