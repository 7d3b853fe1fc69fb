#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Sets a machine up for the VM tests, from Debian's archive only, caching
# everything under $NAME_CACHE (default ~/.cache/NAME), NAME being the
# interface (the one header of uapi/linux/, NAME.h, two directories above
# this file) and NAME_CACHE its upper case:
#
#   fetch.sh deps [lint|upstream]  install the packages the build and the
#                            VM need (and those of make lint, or of make
#                            check-upstream: a kernel tree's build)
#   fetch.sh source [6.1|newest] linux-source-6.12 (kselftest harness,
#                            checkpatch), bookworm's 6.1 (the survey's
#                            witnesses) or sid's newest linux-source;
#                            prints the tree's path
#   fetch.sh kernel SERIES   newest Debian kernel of SERIES and its headers;
#                            prints "KVER VMLINUZ KDIR ROOT"
#   fetch.sh go              Go from bookworm-backports (syzkaller's build
#                            wants 1.22 or later), unpacked, not installed;
#                            prints its GOROOT
#   fetch.sh deps debug|syz  the packages of the debug kernel's build
#                            (debug-kernel.sh), or of make syz
#   fetch.sh syz-rootfs      make syz's guest tree (bookworm, sshd); prints
#                            its path
#
# SERIES: 6.1 and 6.12 (bookworm), 6.12-rt (bookworm's PREEMPT_RT kernel),
# newest (sid's linux-image-amd64).  ROOT is "-", or for newest the sid
# chroot the module must be built in (KDIR is a path inside it): sid's
# kernels are built with a newer gcc than bookworm's, and their kbuild
# tools need sid's glibc.
#
# Versions are resolved from the metapackages on every run, never pinned, so
# a security update brings a new kernel into the cache next to the old one.
# sid is seen through an apt configuration of its own under the cache (its
# sources list, lists and package cache; the machine's own archive URI and
# keyring): the system's apt setup is neither read for it nor changed, and
# nothing from sid is installed into the system.
set -euo pipefail

name=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../uapi/linux" && ls -- *.h)
name=${name%.h}
cache_var=$(echo "${name}_CACHE" | tr a-z A-Z)
CACHE=${!cache_var:-$HOME/.cache/$name}
PACKAGES="make gcc libc6-dev gcc-multilib qemu-system-x86 busybox-static cpio
	  xz-utils dwarves perl"
# What make lint needs on top (clang and the arm cross headers: uapi-lint's
# arm64 and armhf ABIs; Debian 12's gcc cross compilers would remove
# gcc-multilib)
LINT_PACKAGES="sparse cppcheck mandoc dkms kmod g++ g++-multilib python3
	       clang linux-libc-dev-arm64-cross linux-libc-dev-armhf-cross"
# What make check-upstream needs on top of lint's: a kernel tree's build
# (modules_prepare, objtool), docutils and Sphinx for the docs, rsync for
# kselftest's install
UPSTREAM_PACKAGES="bc flex bison libelf-dev libssl-dev python3-docutils python3-ply
		   python3-git git python3-sphinx python3-sphinx-rtd-theme python3-yaml rsync"
# What the sid chroot holds besides its compiler: kbuild's own needs,
# sparse and dkms for make lint, and what a whole tree's modules_prepare
# builds with (make check-upstream)
CHROOT_PACKAGES="make,binutils,libelf1t64,libssl3t64,zlib1g,pahole,kmod,libc6-dev,sparse,dkms,bc,bison,flex,libelf-dev,libssl-dev,python3"
SID=$CACHE/apt-sid
APT_OPTS=()

log() { printf 'fetch: %s\n' "$*" >&2; }
fail() { log "$*"; exit 1; }

# "apt-get update" once per run, for the system's apt or for sid's
declare -A apt_updated=()
apt_update() {
	local which=${APT_OPTS[*]:+${APT_SUITE:-sid}}
	[ -n "${apt_updated[${which:-system}]:-}" ] && return
	log "apt-get update${which:+ ($which)}"
	apt-get "${APT_OPTS[@]}" update -q >/dev/null ||
		fail "apt-get update${which:+ ($which)} failed"
	apt_updated[${which:-system}]=1
}

# Installs what is missing into the system, from the system's own suites.
install_missing() {	# packages...
	local missing=() p saved=("${APT_OPTS[@]}")
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return
	APT_OPTS=()
	apt_update
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >/dev/null ||
		fail "cannot install ${missing[*]}"
	APT_OPTS=("${saved[@]}")
}

deps() {
	local list=$PACKAGES
	[ "${1:-}" = lint ] && list="$PACKAGES $LINT_PACKAGES"
	[ "${1:-}" = upstream ] && list="$PACKAGES $LINT_PACKAGES $UPSTREAM_PACKAGES"
	# shellcheck disable=SC2086
	install_missing $list
}

# The package a metapackage (or a versioned package) depends on, by prefix.
depends_on() {
	apt-cache "${APT_OPTS[@]}" depends "$1" 2>/dev/null |
		awk -v p="$2" '$1 ~ /Depends:$/ && index($2, p) == 1 { print $2 }'
}

resolve() {
	local out
	out=$(depends_on "$@")
	if [ -z "$out" ]; then
		apt_update
		out=$(depends_on "$@")
	fi
	[ -n "$out" ] || fail "cannot resolve $1 (what it depends on named $2*)"
	printf '%s\n' "$out"
}

version_of() {
	apt-cache "${APT_OPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		awk '/^Version:/ { print $2; exit }'
}

# Downloads packages next to $1 and extracts them into $1 (for a kernel
# image, only its vmlinuz: its modules are not needed).
extract() {
	local dest=$1 debs=$1.debs p deb
	shift
	mkdir -p "$debs" "$dest"
	for p in "$@"; do
		deb=$(ls "$debs/${p}_"*.deb 2>/dev/null || true)
		if [ -z "$deb" ]; then
			log "downloading $p"
			(cd "$debs" && apt-get "${APT_OPTS[@]}" download -q "$p" >/dev/null 2>&1) ||
				{ apt_update; (cd "$debs" && apt-get "${APT_OPTS[@]}" download -q "$p" >/dev/null) ||
				  fail "cannot download $p"; }
			deb=$(ls "$debs/${p}_"*.deb)
		fi
		case $p in
		linux-image-*)	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" ./boot ;;
		linux-binary-*)	dpkg-deb --fsys-tarfile "$deb" |
				tar -x -C "$dest" --wildcards './usr/lib/modules/*/vmlinuz' ;;
		*)		dpkg-deb -x "$deb" "$dest" ;;
		esac
	done
	rm -rf "$debs"
}

# The machine's own Debian archive entry: "URI KEYRING", from deb822
# sources (Debian 12's /etc/apt/sources.list.d/debian.sources) or a
# one-line sources.list.  The first entry of the main archive wins.
archive_entry() {
	local f line uri key
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		line=$(awk '
			/^[[:space:]]*$/ { if (u && s) exit; u = s = k = ""; next }
			/^URIs:/ { if ($2 !~ /security/) u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i !~ /-/) s = $i }
			/^Signed-By:/ { k = $2 }
			END { if (u && s) print u, k }' "$f")
		[ -n "$line" ] && { echo "$line"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		line=$(sed -n -E 's/^deb[[:space:]]+(\[([^]]*)\][[:space:]]+)?([a-z]+:\/\/[^[:space:]]+)[[:space:]]+[a-z]+[[:space:]].*/\3 \2/p' "$f" |
		       grep -v security | head -n 1)
		if [ -n "$line" ]; then
			uri=${line%% *}
			key=$(sed -n 's/.*signed-by=\([^ ]*\).*/\1/p' <<<"$line")
			echo "$uri $key"
			return
		fi
	done
	fail "no Debian archive entry in /etc/apt"
}

# Points APT_OPTS at sid, through its own configuration under the cache;
# its lists are refreshed when older than a day.
use_sid() {
	local uri key
	read -r uri key < <(archive_entry)
	key=${key:-/usr/share/keyrings/debian-archive-keyring.gpg}
	mkdir -p "$SID/lists/partial" "$SID/cache/archives/partial" "$SID/parts"
	echo "deb [signed-by=$key] $uri sid main" >"$SID/sources.list.new"
	mv "$SID/sources.list.new" "$SID/sources.list"
	APT_OPTS=(-o "Dir::Etc::SourceList=$SID/sources.list"
		  -o "Dir::Etc::SourceParts=$SID/parts"
		  -o "Dir::State::Lists=$SID/lists"
		  -o "Dir::Cache=$SID/cache"
		  -o "APT::Sandbox::User=root")
	SID_URI=$uri
	SID_KEY=$key
	if [ -z "$(find "$SID/lists" -name '*_Packages*' -mmin -1440 2>/dev/null)" ]; then
		apt_update
	fi
}

# Go, from bookworm-backports through a configuration of its own (as sid's):
# the newest golang-1.NN that golang-go there depends on, unpacked under the
# cache by version.
go_root() {
	local dir=$CACHE/apt-bpo uri key pkg version root
	read -r uri key < <(archive_entry)
	key=${key:-/usr/share/keyrings/debian-archive-keyring.gpg}
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts"
	echo "deb [signed-by=$key] $uri bookworm-backports main" >"$dir/sources.list"
	APT_OPTS=(-o "Dir::Etc::SourceList=$dir/sources.list"
		  -o "Dir::Etc::SourceParts=$dir/parts"
		  -o "Dir::State::Lists=$dir/lists"
		  -o "Dir::Cache=$dir/cache"
		  -o "APT::Sandbox::User=root")
	APT_SUITE=bookworm-backports
	if [ -z "$(find "$dir/lists" -name '*_Packages*' -mmin -1440 2>/dev/null)" ]; then
		apt_update
	fi
	pkg=$(resolve golang-go golang-1. | sort -V | tail -n 1)
	version=$(version_of "$pkg")
	root=$CACHE/go/$pkg
	if [ "$(cat "$root/.version" 2>/dev/null)" != "$version" ]; then
		rm -rf "$root"
		extract "$root" "$pkg" "${pkg%-go}-src"
		echo "$version" >"$root/.version"
	fi
	version=${pkg#golang-}
	printf '%s\n' "$root/usr/lib/go-${version%-go}"
}

# debootstrap once into $1 and keep it: $1/.done holds the packages it
# was made with, so that a change to the list makes it again.
debootstrap_once() {	# root what suite uri keyring packages
	local root=$1 what=$2 suite=$3 uri=$4 key=$5 packages=$6
	[ "$(cat "$root/.done" 2>/dev/null)" = "$packages" ] && return
	install_missing debootstrap
	rm -rf "$root"
	mkdir -p "$root"
	log "debootstrap $suite into $root, for $what (a few minutes)"
	debootstrap --variant=minbase --keyring="$key" --include="$packages" \
		"$suite" "$root" "$uri" >"$root.log" 2>&1 ||
		fail "debootstrap of $what failed: $(tail -n 5 "$root.log")"
	rm -rf "$root/var/cache/apt/archives"/*.deb
	echo "$packages" >"$root/.done"
}

# A sid chroot with the compiler $1 (gcc-16, ...); /proc is mounted in it
# while a build runs (run.sh).
sid_chroot() {
	local root=$CACHE/sid-root/$1
	debootstrap_once "$root" "the $1 chroot" sid "$SID_URI" "$SID_KEY" \
		"$1,$CHROOT_PACKAGES"
	echo "$root"
}

# The kernel's Makefile (6.16 on) runs scripts/checker-valid.sh before a
# C=1/C=2 build and needs it to print 1, but Debian's headers do not ship
# it: supply one with the same contract (the checker exists and reports no
# error on a file using _Generic), so that make lint's sparse runs.
checker_valid() {	# headers-common tree
	local f=$1/scripts/checker-valid.sh
	grep -q 'checker-valid.sh' "$1/Makefile" || return 0
	[ -e "$f" ] && return 0
	cat >"$f" <<'EOF'
#!/bin/sh -eu
# Supplied by the VM scripts' fetch.sh: Debian's linux-headers lack it.
[ -x "$(command -v "$1")" ] || { echo 0; exit 0; }
tmp=$(mktemp --suffix=.c)
trap 'rm -f "$tmp"' EXIT
printf 'static inline int f(void *p)\n{\n\treturn _Generic(p, void *: 0);\n}\n' >"$tmp"
"$@" "$tmp" 2>&1 | awk -v ok=1 '/error/ { ok = 0 } END { print ok }'
EOF
	chmod +x "$f"
}

# sid's newest kernel: the image and headers of linux-image-amd64, the
# compiler it was built with, a chroot with that compiler, the headers and
# kbuild extracted into it at their own paths.
newest() {
	local image headers kver version dir binary common kbuild gcc root
	use_sid
	image=$(resolve linux-image-amd64 linux-image- | head -n 1)
	headers=$(resolve linux-headers-amd64 linux-headers- | head -n 1)
	kver=${image#linux-image-}
	version=$(version_of "$image")
	[ -n "$version" ] || fail "no version for $image"
	dir=$CACHE/kernels/$kver
	if [ "$(cat "$dir/.done" 2>/dev/null)" != "$version" ]; then
		rm -rf "$dir"
		# From 7.x on, linux-image-<ver> is empty: the kernel is in
		# linux-binary-<ver>, at usr/lib/modules/<ver>/vmlinuz.
		binary=$(depends_on "$image" linux-binary- | head -n 1)
		extract "$dir" "${binary:-$image}"
		mkdir -p "$dir/boot"
		if [ -n "$binary" ]; then
			mv "$dir/usr/lib/modules/$kver/vmlinuz" "$dir/boot/vmlinuz-$kver"
			rm -rf "$dir/usr"
		fi
		common=$(resolve "$headers" linux-headers- | head -n 1)
		kbuild=$(resolve "$headers" linux-kbuild- | head -n 1)
		extract "$dir/headers" "$headers" "$common" "$kbuild"
		echo "$version" >"$dir/.done"
	fi
	# Built with this compiler (.kernelvariables: CC = ... $(CROSS_COMPILE)gcc-16)
	gcc=$(sed -n 's/^CC[[:space:]]*=//p' \
		"$dir/headers/usr/src/linux-headers-$kver/.kernelvariables" |
	      grep -o 'gcc-[0-9][0-9]*' | head -n 1 || true)
	[ -n "$gcc" ] || fail "no compiler named in $kver's .kernelvariables"
	root=$(sid_chroot "$gcc")
	if [ "$(cat "$root/.headers-$kver" 2>/dev/null)" != "$version" ]; then
		log "putting the $kver headers into the chroot"
		cp -a "$dir/headers/." "$root/"
		echo "$version" >"$root/.headers-$kver"
	fi
	checker_valid "$root/usr/src/linux-headers-${kver%-*}-common"
	printf '%s %s %s %s\n' "$kver" "$dir/boot/vmlinuz-$kver" \
		"/usr/src/linux-headers-$kver" "$root"
}

kernel() {
	local series=$1 meta_image meta_headers image headers kver dir kdir version
	case $series in
	6.1)     meta_image=linux-image-amd64; meta_headers=linux-headers-amd64 ;;
	6.12)    meta_image=linux-image-6.12-amd64; meta_headers=linux-headers-6.12-amd64 ;;
	6.12-rt) meta_image=linux-image-6.12-rt-amd64; meta_headers=linux-headers-6.12-rt-amd64 ;;
	newest)  newest; return ;;
	*)       fail "unknown kernel series '$series' (6.1, 6.12, 6.12-rt or newest)" ;;
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
		# The headers' Makefile names the -common tree (and, in newer
		# packaging, its own output directory) by absolute path.
		sed -i -e "s|^include /usr/src/|include $dir/usr/src/|" \
			-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$dir/usr/src/|" \
			"$kdir/Makefile"
		echo "$version" >"$dir/.done"
	fi
	printf '%s %s %s -\n' "$kver" "$dir/boot/vmlinuz-$kver" "$kdir"
}

source_tree() {	# [6.1 | 6.12 | newest]
	local pkg=linux-source-6.12 version tree tarball
	if [ "${1:-6.12}" = newest ]; then
		use_sid
		pkg=$(resolve linux-source linux-source- | sort -V | tail -n 1)
	elif [ "${1:-6.12}" = 6.1 ]; then
		pkg=linux-source-6.1	# bookworm's too (the survey's witnesses)
	elif [ "${1:-6.12}" != 6.12 ]; then
		fail "no linux-source for '$1' (6.1, 6.12 or newest)"
	fi
	tree=$CACHE/$pkg
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

# What building the debug kernel needs on top
DEBUG_PACKAGES="flex bison bc libelf-dev libssl-dev"
# What make syz needs on top of the debug kernel's: syzkaller's executor
# (C++, static), its VM image (debootstrap, mkfs.ext4 -d), ssh into it,
# and the manager's HTTP pages and -bench file (curl, python3)
SYZ_PACKAGES="g++ debootstrap e2fsprogs openssh-client curl python3"

# make syz's guest: bookworm with sshd (syz-manager drives its VMs over
# ssh); make syz adds the module, an init and the key, and makes
# the disk image from it each run.
SYZ_ROOT_PACKAGES="openssh-server,iproute2,kmod"
syz_rootfs() {
	local root=$CACHE/syz/rootfs uri key
	read -r uri key < <(archive_entry)
	debootstrap_once "$root" "the syz guest" bookworm "$uri" \
		"${key:-/usr/share/keyrings/debian-archive-keyring.gpg}" \
		"$SYZ_ROOT_PACKAGES"
	echo "$root"
}

# Sourced (a project's own fetch script adding its jobs): functions only.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

case ${1:-} in
deps)	case ${2:-} in
	debug)	# shellcheck disable=SC2086
		install_missing $PACKAGES $DEBUG_PACKAGES ;;
	syz)	# shellcheck disable=SC2086
		install_missing $PACKAGES $DEBUG_PACKAGES $SYZ_PACKAGES ;;
	*)	deps "${2:-}" ;;
	esac ;;
source)	source_tree "${2:-}" ;;
kernel)	kernel "${2:?series}" ;;
go)	go_root ;;
syz-rootfs)	syz_rootfs ;;
*)	sed -n '3,21p' "$0" >&2; exit 2 ;;
esac
