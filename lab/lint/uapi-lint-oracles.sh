#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make lint: generic/lint/uapi-lint.py's oracles.  A header with one known
# defect per ioctl, each found with its kind and nothing else; a clean
# struct with nothing; --check's exit status; and real structs of Linux
# (the machine's linux-libc-dev), checked against pahole by hand:
#   FITRIM, struct fstrim_range: three __u64, 24 bytes, no flags field
#   FS_IOC_FSGETXATTR, struct fsxattr: five __u32 and 8 bytes of pad, 28
#     bytes (not a multiple of 8); fsx_xflags is its flags field
#   ACRN_IOCTL_ASSIGN_PCIDEV, struct acrn_pcidev: 2 bytes of hole after
#     intr_pin (offset 10), 36 bytes, no flags field
#   CEC_TRANSMIT, struct cec_msg: 1 byte of tail padding after
#     tx_error_cnt (offset 55)
# Prints nothing and exits 0 when every one is as expected.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
lint=$top/generic/lint/uapi-lint.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/linux"
cat >"$tmp/linux/oracle.h" <<'H'
#include <linux/types.h>
#include <linux/ioctl.h>
struct or_ok { __u64 flags; __u64 a; };
#define OR_OK_SIZE_VER0 16
struct or_hole { __u64 flags; __u16 a; __u32 b; };
struct or_pad { __u64 flags; __u32 a; __u16 b; };
struct or_long { __u64 flags; long a; };
struct or_ptr { __u64 flags; void *p; };
struct or_bool { __u64 flags; _Bool b; __u8 pad[7]; };
enum or_e { OR_A };
struct or_enum { __u64 flags; enum or_e e; __u32 pad; };
struct or_ver { __u64 flags; __u64 a; };
#define OR_VER_SIZE_VER0 12
struct or_m32 { __u64 flags; __u32 a; __u64 b; };
struct or_noflags { __u64 a; };
struct or_big { __u64 flags; __u8 d[16384]; };
struct or_bits { __u64 flags; __u32 a:1; __u32 b; };
struct or_odd { __u32 flags; __u32 a; __u32 b; };
#define OR_IOC_OK _IOWR('O', 1, struct or_ok)
#define OR_IOC_HOLE _IOW('O', 2, struct or_hole)
#define OR_IOC_PAD _IOW('O', 3, struct or_pad)
#define OR_IOC_LONG _IOW('O', 4, struct or_long)
#define OR_IOC_PTR _IOW('O', 5, struct or_ptr)
#define OR_IOC_BOOL _IOW('O', 6, struct or_bool)
#define OR_IOC_ENUM _IOW('O', 7, struct or_enum)
#define OR_IOC_VER _IOW('O', 8, struct or_ver)
#define OR_IOC_M32 _IOW('O', 9, struct or_m32)
#define OR_IOC_NOFLAGS _IOW('O', 10, struct or_noflags)
#define OR_IOC_BIG _IOW('O', 11, struct or_big)
#define OR_IOC_BITS _IOW('O', 12, struct or_bits)
#define OR_IOC_ODD _IOR('O', 13, struct or_odd)
#define OR_IOC_NONE _IO('O', 14)
#define OR_IOC_INT _IOR('O', 15, int)
#define OR_IOC_ULONG _IOR('O', 16, unsigned long)
H
# ioctl and its kinds, sorted, comma-separated
expect="OR_IOC_OK ok
OR_IOC_HOLE hole
OR_IOC_PAD tail-padding
OR_IOC_LONG abi-differs,abi-type
OR_IOC_PTR abi-differs,abi-type
OR_IOC_BOOL abi-type
OR_IOC_ENUM abi-type
OR_IOC_VER size-ver
OR_IOC_M32 abi-differs,abi-differs,hole
OR_IOC_NOFLAGS no-flags
OR_IOC_BIG too-big
OR_IOC_BITS abi-type
OR_IOC_ODD not-8-multiple
OR_IOC_NONE ok
OR_IOC_INT ok
OR_IOC_ULONG abi-differs,abi-type"
bad=0
got=$("$lint" --tsv "$tmp/linux/oracle.h") || { echo "uapi-lint failed"; exit 1; }
while read -r ioctl kinds; do
	have=$(awk -F '\t' -v i="$ioctl" '$2 == i { print $6 }' <<<"$got" | sort | paste -sd,)
	[ "$have" = "$kinds" ] || { echo "$ioctl: $have, not $kinds"; bad=1; }
done <<<"$expect"
# the messages name the field and the offset
grep -qP 'OR_IOC_HOLE\t.*\thole\t2 bytes at offset 10, before b\t' <<<"$got" ||
	{ echo "OR_IOC_HOLE: the message names no offset and field"; bad=1; }
grep -qP 'OR_IOC_VER\t.*\tOR_VER_SIZE_VER0 is 12, where no field of struct or_ver ends' <<<"$got" ||
	{ echo "OR_IOC_VER: the message names no constant"; bad=1; }
# --check: 1 on a finding, 0 on a clean header, and --allow
"$lint" --check "$tmp/linux/oracle.h" >/dev/null
[ $? = 1 ] || { echo "--check did not fail on the oracles"; bad=1; }
sed -n '1,4p' "$tmp/linux/oracle.h" >"$tmp/linux/clean.h"
echo "#define OR_IOC_OK _IOWR('O', 1, struct or_ok)" >>"$tmp/linux/clean.h"
"$lint" --check "$tmp/linux/clean.h" >/dev/null || { echo "--check failed a clean header"; bad=1; }
allowed=$("$lint" --allow OR_IOC_NOFLAGS:no-flags "$tmp/linux/oracle.h")
grep -q 'OR_IOC_NOFLAGS.*: ok$' <<<"$allowed" || { echo "--allow did not drop the finding"; bad=1; }
# arm64 and armhf (clang, Debian's cross headers): armhf aligns a __u64 to
# 8 as x86-64 does, so or_m32 differs on i386 alone; a long is 4 bytes on
# both 32-bit ABIs, and armhf's or_long is still 16 (4 of them padding)
arm=$("$lint" --tsv --arch m64,m32,arm64,armhf "$tmp/linux/oracle.h") ||
	{ echo "uapi-lint --arch m64,m32,arm64,armhf failed"; bad=1; }
grep -qP 'OR_IOC_M32\t.*\tabi-differs\tsize 24 \(-m64\), 20 \(-m32\), 24 \(-arm64\), 24 \(-armhf\)' <<<"$arm" ||
	{ echo "OR_IOC_M32: not 24 bytes on arm64 and armhf, 20 on i386"; bad=1; }
grep -qP 'OR_IOC_LONG\t.*\tabi-differs\tsize 16 \(-m64\), 12 \(-m32\), 16 \(-arm64\), 16 \(-armhf\)' <<<"$arm" ||
	{ echo "OR_IOC_LONG: not 12 bytes on i386 and 16 elsewhere"; bad=1; }
# real structs, against pahole by hand (above)
real="FITRIM no-flags
FS_IOC_FSGETXATTR not-8-multiple
ACRN_IOCTL_ASSIGN_PCIDEV hole,no-flags,not-8-multiple
CEC_TRANSMIT tail-padding"
got=$("$lint" --tsv /usr/include/linux/fs.h /usr/include/linux/acrn.h /usr/include/linux/cec.h)
while read -r ioctl kinds; do
	have=$(awk -F '\t' -v i="$ioctl" '$2 == i { print $6 }' <<<"$got" | sort | paste -sd,)
	[ "$have" = "$kinds" ] || { echo "$ioctl: $have, not $kinds"; bad=1; }
done <<<"$real"
exit $bad
