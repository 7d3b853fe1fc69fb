#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Compiles tests/syz/dev_flagsfirst.txt with syzkaller's own compiler,
# syz-sysgen, and checks that every call it describes came out for amd64.
# SYZKALLER is a syzkaller source tree or tarball (default: the snapshot in
# ../shared/third_party/syzkaller, which vendors its Go modules and so
# builds offline); Go comes from bookworm-backports (tests/vm/fetch.sh go).
# Prints nothing on success; exit 2 if there is no syzkaller to use.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CACHE=${FLAGSFIRST_CACHE:-$HOME/.cache/flagsfirst}
src=${SYZKALLER:-}
if [ -z "$src" ]; then
	src=$(ls "$top"/../shared/third_party/syzkaller/syzkaller-*.tar.* 2>/dev/null | head -n 1 || true)
fi
if [ -z "$src" ] || [ ! -e "$src" ]; then
	echo "no syzkaller: pass SYZKALLER=<source tree or tarball>" >&2
	exit 2
fi
if [ -d "$src" ]; then
	tree=$src
else
	tree=$CACHE/syz/$(basename "$src" | sed 's/\.tar\..*//')
	if [ ! -e "$tree/.done" ]; then
		rm -rf "$tree"
		mkdir -p "$tree"
		tar -xf "$src" -C "$tree" --strip-components=1
		touch "$tree/.done"
	fi
fi

GOROOT=$("$top/tests/vm/fetch.sh" go 2>/dev/null)
export GOROOT PATH=$GOROOT/bin:$PATH GOTOOLCHAIN=local GOCACHE=$CACHE/syz/gocache
export GOPATH=$CACHE/syz/gopath
# a snapshot vendors its modules and has no network; a checkout fetches them
[ -d "$tree/vendor" ] && export GOPROXY=off GOFLAGS=-mod=vendor

cp "$here/dev_flagsfirst.txt" "$here/dev_flagsfirst.txt.const" "$tree/sys/linux/"
cd "$tree"
go build -o bin/syz-sysgen ./sys/syz-sysgen
./bin/syz-sysgen
for call in $(sed 's/#.*//' "$here/dev_flagsfirst.txt" | grep -oE '^[a-z]+\$[A-Za-z0-9_]+'); do
	grep -qF "Name:\"$call\"" sys/linux/gen/amd64.go ||
		echo "syz-sysgen made no $call for amd64"
done
