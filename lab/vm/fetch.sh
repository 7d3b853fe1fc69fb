#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# generic/vm/fetch.sh, and what only flagsfirst's lab needs on top:
#
#   fetch.sh deps debug|syz  the packages of the debug kernel's build, or of
#                            make syz (with the debug kernel's)
#   fetch.sh syz-rootfs      make syz's guest tree (bookworm, sshd); prints
#                            its path
#   fetch.sh ...             anything else: as generic/vm/fetch.sh
set -euo pipefail
. "$(dirname "$0")/../../generic/vm/fetch.sh"

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
*)	sed -n '3,9p' "$0" >&2; exit 2 ;;
esac
