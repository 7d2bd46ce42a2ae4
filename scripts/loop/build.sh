#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Step 3: configure and build the kernel in $SRC out of tree into $BUILD.
#
# Config = tinyconfig + scripts/vm/vm.config (what the guest needs) +
# selftests/config (what the tests need; the kselftest convention) +
# $EXTRA_CONFIG (e.g. scripts/check/debug.config), then olddefconfig.  Every
# requested option is verified.  The config is regenerated only when one of
# its inputs changed, so rebuilds stay incremental; ccache keeps compiler
# output across tree switches.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

need_pkgs "${PKGS_BUILD[@]}"
[ -f "$SRC/Makefile" ] || die "no kernel tree in $SRC (run scripts/loop/fetch-base.sh)"

fragments=("$TOP/scripts/vm/vm.config" "$TOP/selftests/config")
for f in ${EXTRA_CONFIG:-}; do
	fragments+=("$f")
done

# verify_config: every option a fragment asks for is in .config as asked.
verify_config() {
	local bad=() line opt want have
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			opt=${line%%=*}
			want=${line#*=}
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			want=n
			;;
		*) continue ;;
		esac
		have=$(sed -n "s/^$opt=//p" "$BUILD/.config")
		[ -n "$have" ] || have=n
		[ "$have" = "$want" ] || bad+=("$opt=$want (have $have)")
	done < <(cat "${fragments[@]}")
	if [ ${#bad[@]} -ne 0 ]; then
		printf '  not set as requested: %s\n' "${bad[@]}" >&2
		return 1
	fi
}

mkdir -p "$BUILD" "$CCACHE_DIR"
KMAKE=(make -C "$SRC" O="$BUILD" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc")

stamp=$(hash_files "${fragments[@]}" "$SRC/Makefile")
if [ ! -f "$BUILD/.config" ] || [ "$(cat "$BUILD/.config-stamp" 2>/dev/null)" != "$stamp" ]; then
	log "configuring: tinyconfig + ${fragments[*]##*/}"
	"${KMAKE[@]}" -s tinyconfig >/dev/null
	(cd "$BUILD" && "$SRC/scripts/kconfig/merge_config.sh" -m -O "$BUILD" \
		"$BUILD/.config" "${fragments[@]}" >/dev/null)
	"${KMAKE[@]}" -s olddefconfig >/dev/null
	# VERIFY_CONFIG=warn: an older tree lacks some options (the caller
	# checks the ones it needs: scripts/bench/bench-packet-netns.sh).
	verify_config || [ "${VERIFY_CONFIG:-}" = warn ] ||
		die "kernel config incomplete (see above)"
	echo "$stamp" >"$BUILD/.config-stamp"
else
	log "config unchanged"
fi

log "building bzImage ($(src_kernelversion), $JOBS jobs, log: $BUILD/build.log)"
if ! "${KMAKE[@]}" bzImage >"$BUILD/build.log" 2>&1; then
	grep -E 'error|Error' "$BUILD/build.log" | head -n 20 >&2 || true
	die "kernel build failed (full log: $BUILD/build.log)"
fi
"${KMAKE[@]}" -s headers_install >/dev/null
grep -E ': warning:' "$BUILD/build.log" >&2 || true
log "kernel: $(kernel_image "$BUILD") ($(stat -c %s "$(kernel_image "$BUILD")") bytes)"
