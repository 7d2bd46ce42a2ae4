# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the proof loop: fetch base -> apply -> build -> boot/run
# -> report.  Sourced by every scripts/*.sh; not executable on its own.

# shellcheck disable=SC2034  # variables are used by the sourcing scripts

# The knobs a user sets are listed, with their defaults, by `make help`
# (the "##" lines of the Makefile); each is read where its default is
# written.  The other variables below that the scripts pass to each other
# in the environment are not knobs: BUILD (the build tree of the kernel at
# hand: variant_kernel, check-debug, check-upstream), VM_OUT and VM_ENV
# (scripts/vm/vm-exec.sh), STATIC_KTAP, RUN_OURS, UPSTREAM_BINS, NO_REPORT
# (the loop's steps), SKIP_SERIES, EXTRA_PATCHES, PATCHES_UPTO
# (scripts/loop/apply.sh), BASE_PKG_RE, BASE_SUITES, VERIFY_CONFIG (the
# older kernel of bench-packet-netns), NETSERIES_TREE_LOCKED (lock_tree).

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CACHE:-/var/cache/netseries}
# The kernel tree the series is applied to: our import of the Debian base,
# or a shared clone of the user's KSRC (the user's tree is never touched).
SRC=$CACHE/src
# Where the series adds its selftests, in a kernel tree.
NETDIR=tools/testing/selftests/net
BUILD=${BUILD:-$CACHE/build}
RUNS=$CACHE/runs
export CCACHE_DIR=$CACHE/ccache
JOBS=${JOBS:-$(nproc)}
# The newest Debian linux-source-7.x is the stand-in for net-next.
BASE_PKG_RE=${BASE_PKG_RE:-'^linux-source-7\.[0-9]+$'}
# Commits the loop makes itself (the base import, `git am` of the series
# onto it) carry this identity, so that a machine without a git identity
# works; the patches keep their own From: lines as authors.
export GIT_COMMITTER_NAME="netseries loop" GIT_COMMITTER_EMAIL=netseries@localhost
# Branch names inside $SRC.
BASE_BRANCH=netseries-base
SERIES_BRANCH=netseries

_t0=${_t0:-$(date +%s)}
export _t0

log() {
	printf '[%4ss] %s\n' "$(($(date +%s) - _t0))" "$*" >&2
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# step NAME CMD...: run one step of the loop and print its elapsed time.
step() {
	local name=$1 t rc
	shift
	t=$(date +%s)
	log "== $name"
	rc=0
	"$@" || rc=$?
	if [ "$rc" -eq 0 ]; then
		log "== $name: done in $(($(date +%s) - t))s"
	else
		log "== $name: FAILED (rc=$rc) in $(($(date +%s) - t))s"
	fi
	return "$rc"
}

# lock_tree: one target at a time on $SRC, $BUILD* and the selftest
# binaries (apply, build, selftest build and VM run share them): taken by
# every entry point, held until it exits, inherited by the scripts it runs.
lock_tree() {
	[ -n "${NETSERIES_TREE_LOCKED:-}" ] && return 0
	mkdir -p "$CACHE"
	exec 8>"$CACHE/tree.lock"
	if ! flock -n 8; then
		log "waiting for another target on $CACHE to finish"
		flock 8
	fi
	export NETSERIES_TREE_LOCKED=1
}

# need_pkgs PKG...: install the Debian packages that are missing (idempotent).
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages (run as root or install): ${missing[*]}"
	log "installing: ${missing[*]}"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; then
		apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed: no reachable package mirror?"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
			die "could not install: ${missing[*]}"
	fi
}

# need_vng: virtme-ng (scripts/vm/vm-exec.sh VM=vng).  Not in this machine's
# release: the newest package from $NEWER_SUITES (Architecture: all) is
# fetched through the private apt state and installed with dpkg, its
# dependencies from this machine's own suites (need_pkgs).  Idempotent.
need_vng() {
	local ver deb deps=() d

	dpkg-query -W -f='${Status}' virtme-ng 2>/dev/null | grep -q 'install ok installed' &&
		return 0
	[ "$(id -u)" -eq 0 ] || die "virtme-ng is not installed (run as root)"
	mkdir -p "$CACHE"
	exec 7>"$CACHE/apt.lock"
	flock 7
	apt_private_update
	ver=$(apt_private_newest virtme-ng)
	[ -n "$ver" ] || die "no virtme-ng package in: $NEWER_SUITES"
	deb=$(apt_private_download virtme-ng "$ver" all)
	exec 7>&-
	# Depends: "a (>= 1), b | c, python3:any" -> a b python3
	for d in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/:any//'); do
		deps+=("$d")
	done
	need_pkgs "${deps[@]}"
	log "installing virtme-ng $ver"
	dpkg -i "$deb" >/dev/null || die "dpkg -i $deb failed"
}

# The Debian archive URI this machine already uses, from its apt sources.
apt_mirror() {
	local uri
	# shellcheck disable=SC2016 # $(REPO_URI) is apt's format, not ours
	uri=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
		grep -v -e security -e '^$' | grep '/debian/\?$' | head -n 1) || true
	[ -n "$uri" ] || die "no Debian mirror found in this machine's apt configuration"
	echo "${uri%/}"
}

# apt_suite_uri SUITE: the archive URI this machine's apt sources use for
# SUITE (e.g. bookworm-security lives in another archive), else apt_mirror.
apt_suite_uri() {
	local uri
	# shellcheck disable=SC2016 # $(REPO_URI) is apt's format, not ours
	uri=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
		awk -v s="$1" '$1 == s { print $2; exit }')
	if [ -n "$uri" ]; then echo "${uri%/}"; else apt_mirror; fi
}

# Suites that carry packages newer than this machine's release (the base
# kernel source, virtme-ng).
NEWER_SUITES=${BASE_SUITES:-"unstable experimental trixie-backports forky-backports"}
# Private apt state for them: lists and downloads live here, never in the
# host's own apt state, and the host's sources are not changed.
APT_DIR=$CACHE/apt

# apt_private CMD ARGS...: an apt command that reads and writes only
# $APT_DIR (sources.list, lists, cache; no dpkg status).
apt_private() {
	local cmd=$1
	shift
	"$cmd" -o Dir::State="$APT_DIR" -o Dir::State::lists="$APT_DIR/lists" \
		-o Dir::State::status=/dev/null -o Dir::Cache="$APT_DIR/cache" \
		-o Dir::Etc::SourceList="$APT_DIR/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Debug::NoLocking=1 "$@"
}

# apt_private_update: $APT_DIR/sources.list names $NEWER_SUITES on this
# machine's own mirror; their package lists are fetched.  A suite that does
# not exist (yet) is not an error: the caller fails if its package is not
# found.  Serialized on $CACHE/apt.lock (fetch-base.sh, need_vng).
apt_private_update() {
	local mirror suite
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
	for suite in $NEWER_SUITES; do
		# The archive this machine uses for the suite if it has one
		# (BASE_SUITES=bookworm-security), else its Debian mirror.
		mirror=$(apt_suite_uri "$suite")
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main"
	done >"$APT_DIR/sources.list"
	log "private apt lists for: $NEWER_SUITES"
	apt_private apt-get -qq update >/dev/null 2>&1 || true
}

# apt_private_newest PKG: the newest version of PKG in the private lists.
apt_private_newest() {
	local v ver=
	for v in $(apt_private apt-cache madison "$1" 2>/dev/null | awk -F'|' '{ print $2 }'); do
		if [ -z "$ver" ] || dpkg --compare-versions "$v" gt "$ver"; then ver=$v; fi
	done
	echo "$ver"
}

# apt_private_download PKG VER ARCH: PKG=VER's .deb in $CACHE/dl (downloaded
# once), its path on stdout.
apt_private_download() {
	local pkg=$1 ver=$2 arch=$3 name deb
	name="${pkg}_${ver//:/%3a}_$arch.deb"
	mkdir -p "$CACHE/dl"
	# apt stamps the file with the server's Last-Modified time: find it by
	# the name apt gives it, not by its modification time.
	deb=$(find "$CACHE/dl" -name "$name" | head -n 1)
	if [ -z "$deb" ]; then
		(cd "$CACHE/dl" && apt_private apt-get -qq download "$pkg=$ver" 2>/dev/null) ||
			die "download of $pkg=$ver failed"
		deb=$(find "$CACHE/dl" -name "$name" | head -n 1)
	fi
	[ -n "$deb" ] || die "download of $pkg=$ver left no file"
	echo "$deb"
}

# debian_root SUITE DIR PKGS LOG: a minimal Debian root in DIR (debootstrap
# minbase plus PKGS, comma-separated) from this machine's own mirror, with
# Debian's binary packages only (scripts/check/llvm-root.sh, check-fresh.sh).
debian_root() {
	local suite=$1 dir=$2 pkgs=$3 logf=$4

	[ "$(id -u)" -eq 0 ] || die "debootstrap needs root"
	need_pkgs debootstrap debian-archive-keyring
	debootstrap --variant=minbase --include="$pkgs" \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		"$suite" "$dir" "$(apt_mirror)" >"$logf" 2>&1 ||
		die "debootstrap failed (log: $logf)"
}

# Packages the host needs for each step.
PKGS_BUILD=(build-essential bc bison flex libelf-dev libssl-dev ccache cpio git
	xz-utils rsync file)
PKGS_VM=(qemu-system-x86)
PKGS_SELFTESTS=(iproute2 ethtool iputils-ping jq net-tools)
PKGS_CHECK=(shellcheck codespell sparse python3-yaml python3-jsonschema python3-ply
	python3-git perl gcc-multilib rsync)

# kernel_up_to_date: steps 1-3 of the loop (base, series, kernel in
# $BUILD), for the targets beside `make` (bench, check-*).
kernel_up_to_date() {
	step "1 fetch base" "$TOP/scripts/loop/fetch-base.sh" &&
		step "2 apply series" "$TOP/scripts/loop/apply.sh" &&
		step "3 build kernel ($BUILD)" "$TOP/scripts/loop/build.sh"
}

# variant_kernel VARIANT [VAR=VALUE...]: a kernel beside the series one
# (check-mutants, check-diff): apply.sh with the variables (SKIP_SERIES=1,
# EXTRA_PATCHES=...), built in a tree of its own, BUILD=$CACHE/build-VARIANT
# (set and exported; ccache makes a new variant cheap).
variant_kernel() {
	local variant=$1
	shift
	BUILD=$CACHE/build-$variant
	export BUILD
	step "apply ($variant)" env "$@" "$TOP/scripts/loop/apply.sh" &&
		step "build ($variant)" "$TOP/scripts/loop/build.sh"
}

# build_selftests_tree DIR [MAKE ARGS...]: the selftests in DIR built as
# mainline builds them, against the uapi headers of the tree in $SRC
# (installed into $CACHE/build-hdr, incremental), not those of a kernel
# built from it (check-static before the build, check-mutants' variants).
build_selftests_tree() {
	local dir=$1
	shift
	make -s -C "$SRC" O="$CACHE/build-hdr" headers_install &&
		make -s -C "$dir" KDIR="$SRC" KHDR="$CACHE/build-hdr/usr/include" "$@"
}

# selftests_only: with SELFTESTS="a.sh ..." (scripts of selftests/Makefile's
# TEST_PROGS that need no program of ours: a series proven alone, whose
# tree lacks what the other tests build against), ONLY=(the make
# variables that restrict selftests/Makefile to them); ONLY=() without it.
selftests_only() {
	local t
	ONLY=()
	[ -n "${SELFTESTS:-}" ] || return 0
	for t in $SELFTESTS; do
		case "$t" in
		*.sh) grep -qE "^[[:space:]]+${t//./\\.}[[:space:]]" "$TOP/selftests/Makefile" ||
			die "SELFTESTS: $t is not in selftests/Makefile's TEST_PROGS" ;;
		*) die "SELFTESTS: $t: scripts only" ;;
		esac
	done
	ONLY=("TEST_PROGS=$SELFTESTS" TEST_GEN_PROGS= TEST_GEN_FILES=
		YNL_GEN_PROGS= YNL_GEN_FILES=)
}

# build_selftests: selftests/ against $SRC and the uapi headers of $BUILD
# (on the host: the VM's root is read-only); only $SELFTESTS if set.
build_selftests() {
	selftests_only
	make -s -C "$TOP/selftests" KDIR="$SRC" KHDR="$BUILD/usr/include" "${ONLY[@]}" >/dev/null
}

# upstream_name ENTRY: the name an UPSTREAM_TESTS entry (PROGRAM or
# SCRIPT:TEST[,TEST...]) runs and reports under: PROGRAM, or SCRIPT without
# .sh, then "-" and the tests with every other character than [A-Za-z0-9_]
# as "_".
upstream_name() {
	local name=${1%%:*} args=

	[ "$name" = "$1" ] || args=${1#*:}
	echo "${name%.sh}${args:+-${args//[^A-Za-z0-9_]/_}}"
}

# selftest_names DIR: the tests the kselftest runner runs from DIR's
# Makefile (TEST_GEN_PROGS, TEST_PROGS), one a line, as make sees them
# (only $SELFTESTS if set).
selftest_names() {
	selftests_only
	# shellcheck disable=SC2016 # make's $(...), not the shell's
	make -s -C "$1" --no-print-directory KDIR="$SRC" "${ONLY[@]}" -f Makefile \
		-f <(printf 'print-tests:\n\t@echo $(notdir $(TEST_GEN_PROGS)) $(TEST_PROGS)\n') \
		print-tests | tr ' ' '\n' | sed '/^$/d'
}

# The kernel release of the tree in $SRC, e.g. 7.3.4.
src_kernelversion() {
	make -s -C "$SRC" kernelversion 2>/dev/null
}

# kernel_image [BUILD]: the bzImage of a build tree (default $BUILD).
kernel_image() {
	echo "${1:-$BUILD}/arch/x86/boot/bzImage"
}

# new_run NAME: a new results directory $RUNS/<date>-NAME.XXXX (path on
# stdout); every target that keeps results makes its directory here.
new_run() {
	mkdir -p "$RUNS"
	mktemp -d "$RUNS/$(date +%Y%m%d-%H%M%S)-$1.XXXX"
}

# build_helper DIR/NAME.c [CFLAGS...]: the helper program NAME (a
# benchmark's load generator or flusher) built on the host into
# $CACHE/helpers/NAME when missing, older than its source or built with
# other CFLAGS (kept in NAME.cflags), path on stdout.  Never in the source
# tree.  In the guest (read-only root) the same call finds the binary the
# host built before the boot, or fails.  Benchmarks build them -static and
# run them through stage_helper.
build_helper() {
	local src=$1 bin
	shift
	bin=$CACHE/helpers/$(basename "$src" .c)
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] ||
	   [ "$(cat "$bin.cflags" 2>/dev/null)" != "$*" ]; then
		if ! { mkdir -p "$CACHE/helpers" &&
			"${CC:-cc}" -O2 -Wall -Wextra -Werror "$@" -o "$bin.tmp" "$src" &&
			echo "$*" >"$bin.cflags" &&
			mv -f "$bin.tmp" "$bin"; }; then
			die "cannot build $bin from $src"
		fi
	fi
	echo "$bin"
}

# stage_helper BIN: a copy of BIN in the guest's /tmp (tmpfs), path on
# stdout.  Under instruction counting the guest clock runs on while the
# guest waits for the host, and a binary run from the 9p root pages in
# over it (scripts/vm/vm-exec.sh): a benchmark times only binaries that
# are static and in tmpfs.
stage_helper() {
	local dst=/tmp/${1##*/}

	if ! { cp "$1" "$dst.tmp" && mv -f "$dst.tmp" "$dst"; }; then
		die "cannot copy $1 to /tmp"
	fi
	echo "$dst"
}

# The one KTAP emitter of our checks (static, bisect, w1, mutants, diff):
# ktap_result 0|RC DESCRIPTION [DETAILS_FILE]: "ok N DESCRIPTION" or "not ok
# N DESCRIPTION" (then DETAILS_FILE as "# " lines before it), also appended
# to $KTAP_FILE if set, after a "KTAP version 1" header before the first;
# a failure sets KTAP_FAILED.  ktap_summary: the plan "1..N" (last: the
# count is known at the end, which TAP 13 allows), the counts on stderr,
# status 1 if anything failed.
KTAP_N=0
KTAP_FAILED=0
ktap_out() {
	echo "$1"
	[ -z "${KTAP_FILE:-}" ] || echo "$1" >>"$KTAP_FILE"
}
ktap_result() {
	local line
	[ "$KTAP_N" -ne 0 ] || ktap_out "KTAP version 1"
	KTAP_N=$((KTAP_N + 1))
	if [ "$1" -eq 0 ]; then
		line="ok $KTAP_N $2"
	else
		line="not ok $KTAP_N $2"
		KTAP_FAILED=$((KTAP_FAILED + 1))
		[ -s "${3:-}" ] && sed 's/^/# /' "$3"
	fi
	ktap_out "$line"
}
ktap_summary() {
	ktap_out "1..$KTAP_N"
	log "${1:-results}: $((KTAP_N - KTAP_FAILED)) passed, $KTAP_FAILED failed"
	[ "$KTAP_FAILED" -eq 0 ]
}

# sha256 over files (missing files hash as empty), for stamps.
hash_files() {
	{ cat "$@" 2>/dev/null || true; } | sha256sum | cut -d' ' -f1
}

# The kernel series: one folder per series under patches/, N-TREE-TOPIC,
# applied and sent in the order of N (scripts/series/export-series.sh);
# patches/iproute2/ is not one of them.
series_dirs() {
	find "$TOP/patches" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*-net-*' | sort -V
}

# series_deps DIR: the series (directories) whose patches DIR's cover letter
# names as prerequisite-patch-id (matched by `git patch-id --stable` of the
# patch files), one a line, sorted; "unknown prerequisite ID" for an id of
# no series' patch.
series_deps() {
	local d p id
	local -A owner=()
	for d in $(series_dirs); do
		for p in $(series_patches "$d"); do
			owner[$(git patch-id --stable <"$p" | cut -d' ' -f1)]=$d
		done
	done
	sed -n 's/^prerequisite-patch-id: //p' "$1/0000-cover-letter.patch" 2>/dev/null |
		while read -r id; do
			echo "${owner[$id]:-unknown prerequisite $id}"
		done | sort -u
}

# series_patches [DIR...]: the patches of those series (default: all, in
# the order they apply), cover letters left out.
series_patches() {
	local d dirs
	if [ $# -eq 0 ]; then
		mapfile -t dirs < <(series_dirs)
		set -- "${dirs[@]}"
	fi
	for d in "$@"; do
		find "$d" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort
	done
}
