#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/syz/sysgen.sh: compiles tests/syz/describe.sh's description with
# syzkaller's own compiler, syz-sysgen, and checks that every call it
# describes came out for amd64.  SYZKALLER is a syzkaller source tree or
# tarball (a snapshot that vendors its Go modules builds offline; a git
# checkout fetches them); a tarball is unpacked once under the cache.  Go
# comes from bookworm-backports (tests/vm/fetch.sh go), not installed.
# Prints nothing on success; exit 2, with one line, without a syzkaller.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${SKEL_CACHE:-$HOME/.cache/skel}
src=${SYZKALLER:-}
if [ -z "$src" ] || [ ! -e "$src" ]; then
	echo "no syzkaller: pass SYZKALLER=<a syzkaller source tree or tarball>" >&2
	exit 2
fi
if [ -d "$src" ]; then
	tree=$(cd "$src" && pwd)
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
export GOROOT PATH=$GOROOT/bin:$PATH GOTOOLCHAIN=local
export GOCACHE=$CACHE/syz/gocache GOPATH=$CACHE/syz/gopath
[ -d "$tree/vendor" ] && export GOPROXY=off GOFLAGS=-mod=vendor

# The description goes in with the kernel's own, for this run only.
"$top/tests/syz/describe.sh" "$tree/sys/linux"
trap 'rm -f "$tree/sys/linux/dev_skel.txt" "$tree/sys/linux/dev_skel.txt.const"' EXIT
cd "$tree"
go build -o bin/syz-sysgen ./sys/syz-sysgen
./bin/syz-sysgen
for call in $(sed 's/#.*//' sys/linux/dev_skel.txt | grep -oE '^[a-z]+\$[A-Za-z0-9_]+'); do
	grep -qF "Name:\"$call\"" sys/linux/gen/amd64.go ||
		echo "syz-sysgen made no $call for amd64"
done
