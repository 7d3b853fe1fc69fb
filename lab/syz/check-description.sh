#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make lint: lab/syz/dev_flagsfirst.txt still describes the header.  Fails
# when uapi/linux/flagsfirst.h has an op (FLAGSFIRST_IOC_*), a flag or
# event type, or a struct field the description lacks; when a sized
# ioctl number no longer has its op's type, direction and number; and
# when the .const file is not what gen-const.sh makes of the header now.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
hdr=$top/uapi/linux/flagsfirst.h
desc=$here/dev_flagsfirst.txt
body=$(sed 's/#.*//' "$desc")
bad=0

# Every op and every single flag (not the *_FLAGS unions, EVENT_ALL or sizes)
for m in $(grep -oE '^#define FLAGSFIRST_[A-Z0-9_]+' "$hdr" | cut -d' ' -f2 |
	   grep -vE '_FLAGS$|_SIZE_VER[0-9]+$|_EVENT_ALL$|_NAME_MAX$|_VALUE_MAX$'); do
	if ! grep -qw -- "$m" <<<"$body"; then
		echo "dev_flagsfirst.txt lacks $m"
		bad=1
	fi
done

# Every field of every argument struct, in the description's struct
for s in $(grep -oE '^struct flagsfirst_[a-z_]+ \{' "$hdr" | cut -d' ' -f2); do
	[ "$s" = flagsfirst_event ] && continue	# read(2)'s output only
	fields=$(sed -n "/^struct $s {/,/^};/p" "$hdr" | grep -oE '[a-z_]+;' | tr -d ';' | sed 's/^__//')
	dfields=$(sed -n "/^$s {/,/^}/p" <<<"$body" | awk 'NF >= 2 { print $1 }')
	if [ -z "$dfields" ]; then
		echo "dev_flagsfirst.txt lacks struct $s"
		bad=1
		continue
	fi
	for f in $fields; do
		grep -qx -- "$f" <<<"$dfields" || { echo "dev_flagsfirst.txt: $s lacks $f"; bad=1; }
	done
done

# The sized forms: type 'Y', read+write, the op's own number
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/gen-const.sh" "$tmp/const"
while read -r name _ values; do
	op=${name#flagsfirst_}
	op=${op%_sizes}
	ioc=$(sed -n "s/^FLAGSFIRST_IOC_${op^^} = //p" "$tmp/const")
	[ -n "$ioc" ] || { echo "dev_flagsfirst.txt: $name: no FLAGSFIRST_IOC_${op^^}"; bad=1; continue; }
	for v in ${values//,/ }; do
		if (( (v & 0xc000ffff) != (ioc & 0xc000ffff) )); then
			printf 'dev_flagsfirst.txt: %s: %s is not FLAGSFIRST_IOC_%s with another size\n' "$name" "$v" "${op^^}"
			bad=1
		fi
	done
done < <(grep -E '^flagsfirst_[a-z]+_sizes = ' <<<"$body")

# The constants, as the header has them now
if ! diff -u "$here/dev_flagsfirst.txt.const" "$tmp/const"; then
	echo "dev_flagsfirst.txt.const is stale: run lab/syz/gen-const.sh"
	bad=1
fi
exit $bad
