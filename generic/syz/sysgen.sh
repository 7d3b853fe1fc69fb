#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Compiles the interface's syzkaller description (dev_NAME.txt: see
# env.sh) with syzkaller's own compiler, syz-sysgen, and checks that every
# call it describes came out for amd64.  SYZKALLER as in env.sh.
# Prints nothing on success; exit 2 if there is no syzkaller to use.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# $name, $tree, $desc, Go, syz_describe and syz_forget
. "$here/env.sh"

syz_describe
trap syz_forget EXIT
cd "$tree"
go build -o bin/syz-sysgen ./sys/syz-sysgen
./bin/syz-sysgen
for call in $(sed 's/#.*//' "$desc/dev_$name.txt" | grep -oE '^[a-z]+\$[A-Za-z0-9_]+'); do
	grep -qF "Name:\"$call\"" sys/linux/gen/amd64.go ||
		echo "syz-sysgen made no $call for amd64"
done
