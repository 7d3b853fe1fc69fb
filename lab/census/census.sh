#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make census [CENSUS_KERNELS="6.1 6.12 7.2"] [CENSUS_DOC=docs/census.md]:
# generic/lint/uapi-lint.py over the whole of include/uapi of each kernel,
# as user space gets it (make headers_install's tree):
#
#   6.1    bookworm's linux-libc-dev (6.1's headers_install)
#   6.12   make headers in Debian's linux-source-6.12
#   7.2    sid's linux-libc-dev (or "newest": whatever sid has)
#
# Prints, per kernel, how many ioctl commands carry a struct and how many
# of those have a flags field, a hole or tail padding, a 32/64-bit
# difference, an ABI-dependent type, a size-versioning scheme; the
# subsystems that do best and worst; between the first kernel and the
# last, whether the ioctls added since follow the discipline more often;
# and, on the last, which 32/64-bit differences arm's ABIs share.  Each
# kernel's headers also answer lab/survey/bits.py: the survey's unknown
# bits are defined by none of them.
# Each kernel's findings are kept as TSV in $FLAGSFIRST_BUILD/census/.
# With CENSUS_DOC, the tables between that page's census markers are
# remade.  Ends with "N passed, N failed": a kernel whose census did not
# run, or ran longer than two minutes, fails.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/generic/vm/fetch.sh"
BUILD=${FLAGSFIRST_BUILD:-$top/build}
out=$BUILD/census
mkdir -p "$out"
kernels=${CENSUS_KERNELS:-6.1 6.12 7.2}
passed=0
failed=0
install_missing dwarves gcc-multilib binutils python3 clang \
	linux-libc-dev-arm64-cross linux-libc-dev-armhf-cross

# The headers of $1, as "ROOT ASMDIR VERSION": ROOT holds linux/, drm/, ...
headers_of() {
	local k=$1 dir ver pkg
	case $k in
	6.1)	dir=$CACHE/uapi/6.1
		ver=$(version_of linux-libc-dev)
		if [ "$(cat "$dir/.version" 2>/dev/null)" != "$ver" ]; then
			rm -rf "$dir"
			extract "$dir" linux-libc-dev >&2
			echo "$ver" >"$dir/.version"
		fi
		echo "$dir/usr/include $dir/usr/include/x86_64-linux-gnu linux-libc-dev_$ver" ;;
	6.12)	dir=$CACHE/uapi/6.12
		src=$(source_tree 6.12)
		if [ "$(cat "$dir/.version" 2>/dev/null)" != "$(cat "$src/.version")" ]; then
			rm -rf "$dir"
			make -s -C "$src" O="$dir/o" ARCH=x86 headers >&2
			cp "$src/.version" "$dir/.version"
		fi
		echo "$dir/o/usr/include $dir/o/usr/include linux-source-6.12_$(cat "$dir/.version")" ;;
	7.2 | newest)
		use_sid
		ver=$(version_of linux-libc-dev)
		[ -n "$ver" ] || fail "sid has no linux-libc-dev"
		case $k in 7.2) [[ $ver == 7.2* ]] || fail "sid's linux-libc-dev is $ver, not 7.2" ;; esac
		dir=$CACHE/uapi/$k
		if [ "$(cat "$dir/.version" 2>/dev/null)" != "$ver" ]; then
			rm -rf "$dir"
			extract "$dir" linux-libc-dev >&2
			echo "$ver" >"$dir/.version"
		fi
		echo "$dir/usr/include $dir/usr/include/x86_64-linux-gnu linux-libc-dev_${ver}_sid" ;;
	*)	fail "census: no headers for '$k' (6.1, 6.12, 7.2, newest)" ;;
	esac
}

for k in $kernels; do
	read -r root asm version < <(headers_of "$k")
	dirs=()
	for d in linux asm-generic drm misc mtd rdma regulator scsi sound video xen; do
		[ -d "$root/$d" ] && dirs+=("$root/$d")
	done
	[ -d "$asm/asm" ] && dirs+=("$asm/asm")
	start=$SECONDS
	if python3 "$top/generic/lint/uapi-lint.py" --tsv --root "$root" -I "$asm" \
		"${dirs[@]}" | sed "s|$asm/||; s|$root/||" >"$out/$k.tsv.new"; then
		mv "$out/$k.tsv.new" "$out/$k.tsv"
		took=$((SECONDS - start))
		if [ "$took" -le 120 ]; then
			echo "ok - census of $k's include/uapi in $took s ($version)"
			echo "$version" >"$out/$k.version"
			passed=$((passed + 1))
		else
			echo "not ok - census of $k took $took s, more than 120"
			failed=$((failed + 1))
		fi
	else
		echo "not ok - census of $k: uapi-lint failed"
		failed=$((failed + 1))
	fi
	# the survey's unknown bits (userspace/atlas.h), none defined here
	if python3 "$top/lab/survey/bits.py" "$root:$asm" >"$out/$k.bits"; then
		echo "ok - the survey's unknown bits are undefined in $k's headers ($(grep -c '^ok' "$out/$k.bits") families)"
		passed=$((passed + 1))
	else
		echo "not ok - the survey's unknown bits: $k's headers define one"
		grep -v '^ok' "$out/$k.bits" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
done

# The newest kernel again on arm64 and armhf (clang, with the asm/ headers
# of Debian 12's linux-libc-dev-arm64-cross and -armhf-cross, the only
# arch-specific headers, put first): which of the payloads that differ
# between i386 and x86-64 also differ between the two arm ABIs.
last=${kernels##* }
read -r root asm version < <(headers_of "$last")
for a in arm64:aarch64-linux-gnu armhf:arm-linux-gnueabihf; do
	mkdir -p "$out/asm-${a%%:*}"
	ln -sfn "/usr/${a#*:}/include/asm" "$out/asm-${a%%:*}/asm"
done
dirs=()
for d in linux asm-generic drm misc mtd rdma regulator scsi sound video xen; do
	[ -d "$root/$d" ] && dirs+=("$root/$d")
done
start=$SECONDS
if python3 "$top/generic/lint/uapi-lint.py" --tsv --arch arm64,armhf --root "$root" \
	--arch-include "arm64=$out/asm-arm64" --arch-include "armhf=$out/asm-armhf" \
	"${dirs[@]}" | sed "s|$root/||" >"$out/$last.arm.tsv.new"; then
	mv "$out/$last.arm.tsv.new" "$out/$last.arm.tsv"
	echo "ok - census of $last's include/uapi on arm64 and armhf in $((SECONDS - start)) s"
	passed=$((passed + 1))
else
	echo "not ok - census of $last on arm64 and armhf: uapi-lint failed"
	failed=$((failed + 1))
fi

report=$out/report.md
python3 "$top/lab/census/report.py" "$out" $kernels >"$report"
cat "$report"
if [ -n "${CENSUS_DOC:-}" ]; then
	python3 - "$CENSUS_DOC" "$report" <<'PY'
import sys
doc, rep = sys.argv[1], open(sys.argv[2]).read()
text = open(doc).read()
a, b = '<!-- census:begin -->', '<!-- census:end -->'
i, j = text.index(a) + len(a), text.index(b)
open(doc, 'w').write(text[:i] + '\n' + rep + '\n' + text[j:])
PY
	echo "# $CENSUS_DOC: the tables remade"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
