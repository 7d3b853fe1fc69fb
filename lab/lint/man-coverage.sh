#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Keeps the man pages true to the uapi header: every FLAGSFIRST_* macro and
# every errno the header names must appear in man/.  Prints what is missing.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
header=$top/uapi/linux/flagsfirst.h
pages=$(cat "$top"/man/*)
# The errno vocabulary, from the kernel's own uapi headers.
errnos=$(grep -hoE '^#define[[:space:]]+E[A-Z0-9]+' /usr/include/asm-generic/errno-base.h \
	/usr/include/asm-generic/errno.h | awk '{ print $2 }' | sort -u)

missing=0
check() {	# word what
	if ! grep -qw -- "$1" <<<"$pages"; then
		echo "man/ never names $2 $1"
		missing=$((missing + 1))
	fi
}
for m in $(grep -oE '^#define[[:space:]]+FLAGSFIRST_[A-Z0-9_]+' "$header" | awk '{ print $2 }'); do
	check "$m" macro
done
for e in $(grep -oE '\bE[A-Z0-9]+\b' "$header" | sort -u); do
	grep -qx "$e" <<<"$errnos" && check "$e" errno
done
echo "man-coverage: $missing missing"
[ "$missing" = 0 ]
