#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs a command in a chroot made by fetch.sh (sid's, for its kernels),
# with /proc mounted there while it runs: kbuild's tools read it.
#
#   in-chroot.sh ROOT COMMAND...
set -euo pipefail
root=${1:?usage: in-chroot.sh ROOT COMMAND...}
shift
mounted=
if ! mountpoint -q "$root/proc"; then
	mount -t proc proc "$root/proc"
	mounted=1
fi
rc=0
chroot "$root" "$@" || rc=$?
[ -z "$mounted" ] || umount "$root/proc"
exit $rc
