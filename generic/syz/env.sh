# SPDX-License-Identifier: GPL-2.0-only
# Sourced by make syz (run.sh here) and by the description's syz-sysgen
# check: finds syzkaller, sets Go up and says what to describe.  NAME is
# the interface (the one header of uapi/linux/, two directories above this
# file).  SYZKALLER is a syzkaller source tree or tarball (default: a
# snapshot in ../shared/third_party/syzkaller beside the project, which
# vendors its Go modules and so builds offline); a tarball is unpacked
# once under $NAME_CACHE.  Go comes from bookworm-backports (fetch.sh go),
# unpacked, not installed.
#
# Sets $name, $tree (the source tree to build in), $desc (a directory
# holding dev_NAME.txt and dev_NAME.txt.const: $SYZ_DESCRIPTION if set,
# else what describe.sh beside this file writes from the header) and Go's
# environment; exit 2 with a one-line message if there is no syzkaller.
syz_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# fetch.sh's functions and $CACHE, $name (it is two directories deep too)
. "$syz_dir/../vm/fetch.sh"
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

GOROOT=$("$syz_dir/../vm/fetch.sh" go 2>/dev/null)
export GOROOT PATH=$GOROOT/bin:$PATH GOTOOLCHAIN=local GOCACHE=$CACHE/syz/gocache
export GOPATH=$CACHE/syz/gopath
# a snapshot vendors its modules and has no network; a checkout fetches them
[ -d "$tree/vendor" ] && export GOPROXY=off GOFLAGS=-mod=vendor

if [ -n "${SYZ_DESCRIPTION:-}" ]; then
	desc=$(cd "$SYZ_DESCRIPTION" && pwd)
else
	desc=$(mktemp -d)
	syz_made_desc=$desc
	"$syz_dir/describe.sh" "$desc"
fi
for f in "dev_$name.txt" "dev_$name.txt.const"; do
	[ -e "$desc/$f" ] || { echo "no $f in $desc" >&2; exit 2; }
done

# The description goes in with the kernel's own while syzkaller is built,
# and out again (syz_forget): a tree shared by several projects keeps none.
syz_describe() {
	cp "$desc/dev_$name.txt" "$desc/dev_$name.txt.const" "$tree/sys/linux/"
}
syz_forget() {
	rm -f "$tree/sys/linux/dev_$name.txt" "$tree/sys/linux/dev_$name.txt.const"
	[ -z "${syz_made_desc:-}" ] || rm -rf "$syz_made_desc"
}
