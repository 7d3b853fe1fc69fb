# SPDX-License-Identifier: GPL-2.0-only
# Sourced by lab/syz/sysgen.sh and run.sh: finds syzkaller and sets Go up.
# SYZKALLER is a syzkaller source tree or tarball (default: the snapshot in
# ../shared/third_party/syzkaller, which vendors its Go modules and so
# builds offline); a tarball is unpacked once under the cache.  Go comes
# from bookworm-backports (generic/vm/fetch.sh go), unpacked, not installed.
# Sets $tree (the source tree to build in) and Go's environment; exit 2
# with a one-line message if there is no syzkaller to use.
CACHE=${FLAGSFIRST_CACHE:-$HOME/.cache/flagsfirst}
src=${SYZKALLER:-}
if [ -z "$src" ]; then
	src=$(ls "$top"/../shared/third_party/syzkaller/syzkaller-*.tar.* 2>/dev/null | head -n 1 || true)
fi
if [ -z "$src" ] || [ ! -e "$src" ]; then
	echo "no syzkaller: pass SYZKALLER=<a syzkaller source tree or tarball> (a git checkout of github.com/google/syzkaller fetches its Go modules itself)" >&2
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

GOROOT=$("$top/generic/vm/fetch.sh" go 2>/dev/null)
export GOROOT PATH=$GOROOT/bin:$PATH GOTOOLCHAIN=local GOCACHE=$CACHE/syz/gocache
export GOPATH=$CACHE/syz/gopath
# a snapshot vendors its modules and has no network; a checkout fetches them
[ -d "$tree/vendor" ] && export GOPROXY=off GOFLAGS=-mod=vendor
# Our description goes in with the kernel's own.
cp "$top/lab/syz/dev_flagsfirst.txt" "$top/lab/syz/dev_flagsfirst.txt.const" \
	"$tree/sys/linux/"
