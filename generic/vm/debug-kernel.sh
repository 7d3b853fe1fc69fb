#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds a debug kernel from Debian's linux-source-6.12: tinyconfig plus
# debug/debug.config beside this file and, for "debug", syz.config (KCOV,
# a disk and a NIC: make syz fuzzes on it, and a project's debug tier can
# run on the same build) or, for "rt", debug-rt.config (PREEMPT_RT) on top;
# or reuses the one cached under $NAME_CACHE/debug-kernel/ for the same
# source version and fragments (a cache shared by several projects builds
# it once).
#
#   debug-kernel.sh [debug|rt]   prints "KVER BZIMAGE KDIR"
#   debug-kernel.sh [debug|rt] >/dev/null &   builds it ahead
#
# About 10 minutes on 2 cores each when not cached.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# fetch.sh's functions and $CACHE
. "$here/fetch.sh"
variant=${1:-debug}
fragments=("$here/debug/debug.config")
case $variant in
debug)	fragments+=("$here/debug/syz.config") ;;
rt)	fragments+=("$here/debug/debug-rt.config") ;;
*)	echo "usage: debug-kernel.sh [debug|rt]" >&2; exit 2 ;;
esac
log() { printf 'debug-kernel (%s): %s\n' "$variant" "$*" >&2; }

"$here/fetch.sh" deps debug
src=$("$here/fetch.sh" source)
# The key is the source's version and the options, comments aside: the
# same fragments under another project's name build nothing again.
key=$({ cat "$src/.version"; grep -hv -e '^#' -e '^$' "${fragments[@]}"; } |
      sha256sum | cut -c1-16)
out=$CACHE/debug-kernel/$key

# One build at a time of a key: a second caller (CI builds both kernels
# ahead, in the background) waits for the first and takes its result.
mkdir -p "$CACHE/debug-kernel"
exec 9>"$out.lock"
flock 9
if [ ! -e "$out/.done" ]; then
	rm -rf "$out"
	mkdir -p "$out"
	log "configuring in $out"
	make -s -C "$src" O="$out" tinyconfig >&2
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${fragments[@]}" >/dev/null
	make -s -C "$src" O="$out" olddefconfig >&2
	# A dependency can silently drop an option (6.12's tinyconfig turns on
	# SLUB_TINY, which hides KASAN): refuse to build what was not asked for.
	bad=0
	while read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qx "$line" "$out/.config" ||
				{ log "not in .config: $line"; bad=1; } ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			! grep -q "^$opt=" "$out/.config" ||
				{ log "set in .config: $opt"; bad=1; } ;;
		esac
	done < <(cat "${fragments[@]}")
	[ $bad = 0 ] || exit 1
	log "building (about 10 minutes on 2 cores)"
	make -s -C "$src" O="$out" -j"$(nproc)" >&2
	touch "$out/.done"
fi
printf '%s %s %s\n' "$(cat "$out/include/config/kernel.release")" \
	"$out/arch/x86/boot/bzImage" "$out"
