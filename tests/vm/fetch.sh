#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Sets a machine up for the VM tests, from Debian's archive only, caching
# everything under $FLAGSFIRST_CACHE (default ~/.cache/flagsfirst):
#
#   fetch.sh deps [debug|lint]  install the packages the build and the VM
#                            need (and those of the debug kernel, or of lint)
#   fetch.sh source          linux-source-6.12 (kselftest harness, checkpatch);
#                            prints the tree's path
#   fetch.sh kernel SERIES   newest Debian kernel of SERIES (6.1 or 6.12) and
#                            its headers; prints "KVER VMLINUZ KDIR"
#
# Versions are resolved from the metapackages on every run, never pinned, so
# a security update brings a new kernel into the cache next to the old one.
set -euo pipefail

CACHE=${FLAGSFIRST_CACHE:-$HOME/.cache/flagsfirst}
PACKAGES="make gcc libc6-dev gcc-multilib qemu-system-x86 busybox-static cpio
	  xz-utils dwarves perl"
# What building the debug kernel needs on top
DEBUG_PACKAGES="flex bison bc libelf-dev libssl-dev"
# What make lint needs on top
LINT_PACKAGES="sparse cppcheck mandoc dkms kmod g++ g++-multilib"

log() { printf 'fetch: %s\n' "$*" >&2; }

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return
	log "apt-get update"
	apt-get update -q >/dev/null
	apt_updated=1
}

deps() {
	local missing=() p list=$PACKAGES
	[ "${1:-}" = debug ] && list="$PACKAGES $DEBUG_PACKAGES"
	[ "${1:-}" = lint ] && list="$PACKAGES $LINT_PACKAGES"
	for p in $list; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return
	apt_update
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >/dev/null
}

# The package a metapackage (or a versioned package) depends on, by prefix.
depends_on() {
	apt-cache depends "$1" 2>/dev/null |
		awk -v p="$2" '$1 ~ /Depends:$/ && index($2, p) == 1 { print $2 }'
}

resolve() {
	local out
	out=$(depends_on "$@")
	if [ -z "$out" ]; then
		apt_update
		out=$(depends_on "$@")
	fi
	[ -n "$out" ] || { log "cannot resolve $1"; exit 1; }
	printf '%s\n' "$out"
}

# Downloads packages next to $1 and extracts them into $1 (for a kernel
# image, only /boot: its modules are not needed).
extract() {
	local dest=$1 debs=$1.debs p deb
	shift
	mkdir -p "$debs" "$dest"
	for p in "$@"; do
		deb=$(ls "$debs/${p}_"*.deb 2>/dev/null || true)
		if [ -z "$deb" ]; then
			log "downloading $p"
			(cd "$debs" && apt-get download -q "$p" >/dev/null 2>&1) ||
				{ apt_update; (cd "$debs" && apt-get download -q "$p" >/dev/null); }
			deb=$(ls "$debs/${p}_"*.deb)
		fi
		case $p in
		linux-image-*)	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" ./boot ;;
		*)		dpkg-deb -x "$deb" "$dest" ;;
		esac
	done
	rm -rf "$debs"
}

version_of() {
	apt-cache show --no-all-versions "$1" 2>/dev/null | awk '/^Version:/ { print $2; exit }'
}

kernel() {
	local series=$1 meta_image meta_headers image headers kver dir kdir version
	case $series in
	6.1)  meta_image=linux-image-amd64; meta_headers=linux-headers-amd64 ;;
	6.12) meta_image=linux-image-6.12-amd64; meta_headers=linux-headers-6.12-amd64 ;;
	*)    log "unknown kernel series '$series' (6.1 or 6.12)"; exit 1 ;;
	esac
	image=$(resolve "$meta_image" linux-image- | head -n 1)
	headers=$(resolve "$meta_headers" linux-headers- | head -n 1)
	kver=${image#linux-image-}
	version=$(version_of "$image")
	dir=$CACHE/kernels/$kver
	kdir=$dir/usr/src/linux-headers-$kver
	# A rebuild can keep the ABI name: key the cache by the version too.
	if [ "$(cat "$dir/.done" 2>/dev/null)" != "$version" ]; then
		rm -rf "$dir"
		extract "$dir" "$image" "$headers" \
			$(resolve "$headers" linux-headers-) \
			$(resolve "$headers" linux-kbuild-)
		# The headers' Makefile includes the -common tree by absolute path.
		sed -i "s|^include /usr/src/|include $dir/usr/src/|" "$kdir/Makefile"
		echo "$version" >"$dir/.done"
	fi
	printf '%s %s %s\n' "$kver" "$dir/boot/vmlinuz-$kver" "$kdir"
}

source_tree() {
	local pkg=linux-source-6.12 version tree=$CACHE/linux-source-6.12 tarball
	version=$(version_of "$pkg")
	if [ -z "$version" ]; then
		apt_update
		version=$(version_of "$pkg")
	fi
	if [ "$(cat "$tree/.version" 2>/dev/null)" != "$version" ]; then
		log "extracting $pkg $version"
		rm -rf "$tree" "$CACHE/src.tmp"
		extract "$CACHE/src.tmp" "$pkg"
		tarball=$CACHE/src.tmp/usr/src/$pkg.tar.xz
		tar -xJf "$tarball" -C "$CACHE"
		rm -rf "$CACHE/src.tmp"
		echo "$version" >"$tree/.version"
	fi
	printf '%s\n' "$tree"
}

case ${1:-} in
deps)	deps "${2:-}" ;;
source)	source_tree ;;
kernel)	kernel "${2:?series}" ;;
*)	sed -n '3,12p' "$0" >&2; exit 2 ;;
esac
