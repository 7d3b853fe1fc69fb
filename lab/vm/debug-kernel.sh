#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds a debug kernel of make check-debug from Debian's linux-source-6.12,
# tinyconfig plus lab/debug/debug.config and, for "debug", syz.config
# (KCOV, a disk and a NIC: make syz fuzzes on the same kernel, so one
# build serves both) or, for "rt", debug-rt.config (PREEMPT_RT) on top, or
# reuses the one cached under
# $FLAGSFIRST_CACHE/debug-kernel/ for the same source version and fragments.
#
#   debug-kernel.sh [debug|rt]   prints "KVER BZIMAGE KDIR"
#
# About 10 minutes on 2 cores each when not cached.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${FLAGSFIRST_CACHE:-$HOME/.cache/flagsfirst}
variant=${1:-debug}
fragments=("$top/lab/debug/debug.config")
case $variant in
debug)	fragments+=("$top/lab/debug/syz.config") ;;
rt)	fragments+=("$top/lab/debug/debug-rt.config") ;;
*)	echo "usage: debug-kernel.sh [debug|rt]" >&2; exit 2 ;;
esac
log() { printf 'debug-kernel (%s): %s\n' "$variant" "$*" >&2; }

"$top/lab/vm/fetch.sh" deps debug
src=$("$top/generic/vm/fetch.sh" source)
key=$(cat "$src/.version" "${fragments[@]}" | sha256sum | cut -c1-16)
out=$CACHE/debug-kernel/$key

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
