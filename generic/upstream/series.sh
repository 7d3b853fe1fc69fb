#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make upstream: the interface as a patch series for Linux, written with
# git format-patch and a cover letter into OUT, from the files the
# project builds (nothing kept twice):
#
#   series.sh KSRC OUT      (from the project's top directory)
#
# KSRC is a pristine kernel tree (Debian's linux-source): the series is
# made against its files, so that git am applies it there with no fuzz.
# The project's upstream/series.conf (sourced; see its comments) says
# what goes where.  The patches:
#
#   1. the uapi header, its ioctl-number.rst line, a MAINTAINERS entry
#   2. the driver under drivers/misc/NAME/, its Kconfig entry and Makefile
#      line, and its KUnit tests with their .kunitconfig (if it has any)
#   3. Documentation/userspace-api/NAME.rst, from the header's kernel-doc
#   4. the selftests, tools/testing/selftests/drivers/NAME/, on lib.mk
#   5. the abi_version parameter, which emulates an older ABI: a teaching
#      aid upstream would not take, kept apart so that it can be dropped
#
# Each patch adding files adds their path to MAINTAINERS too.  Commits are
# signed off by git's configured identity (or, without one, a placeholder
# the cover letter points out).
set -euo pipefail

top=$(pwd)
# checkpatch's spdxcheck.py and docutils are Debian's python3 packages:
# the system's python3, not one a user's PATH may put first
export PATH=/usr/bin:$PATH
here=$(cd "$(dirname "$0")" && pwd)
ksrc=$(cd "${1:?usage: series.sh KSRC OUT}" && pwd)
out=${2:?usage: series.sh KSRC OUT}
cd "$top"
# shellcheck source=/dev/null
. ./upstream/series.conf
: "${NAME:?}" "${UAPI:?}" "${DRIVER_SRCS:?}" "${TEST_SRCS:?}" "${TEST_PROGS:?}"
: "${PROMPT:?}" "${HELP:?}" "${SUMMARY:?}"
UPPER=$(echo "$NAME" | tr a-z A-Z)
type=$(sed -n "s/^#define ${UPPER}_IOC_[A-Z0-9_]*[[:space:]]*_IO[A-Z]*('\\(.\\)'.*/\\1/p" "$UAPI" | head -n 1)
[ -n "$type" ] || { echo "series.sh: no ioctl type in $UAPI" >&2; exit 1; }

ident_name=$(git config user.name || true)
ident_mail=$(git config user.email || true)
placeholder=
if [ -z "$ident_name" ] || [ -z "$ident_mail" ]; then
	ident_name="$NAME developers"
	ident_mail="$NAME@localhost"
	placeholder=1
fi
export GIT_AUTHOR_NAME=$ident_name GIT_AUTHOR_EMAIL=$ident_mail
export GIT_COMMITTER_NAME=$ident_name GIT_COMMITTER_EMAIL=$ident_mail

repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
base_files="MAINTAINERS drivers/misc/Kconfig drivers/misc/Makefile
	    Documentation/userspace-api/index.rst
	    Documentation/userspace-api/ioctl/ioctl-number.rst
	    tools/testing/selftests/Makefile"
for f in $base_files; do
	mkdir -p "$repo/$(dirname "$f")"
	cp "$ksrc/$f" "$repo/$f"
done
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" commit -q -m base

commit() {	# subject, body (wrapped at 72)
	git -C "$repo" add -A
	printf '%s\n\n%s\n' "$1" "$2" | git -C "$repo" commit -q -s -F -
}

# MAINTAINERS: the entry, in its alphabetical place, then one F: line per
# patch that adds files, kept sorted.
maintainers_entry() {
	perl -e '
		my ($title, $entry, $f) = @ARGV;
		open(my $in, "<", $f) or die "$f: $!\n";
		my @l = <$in>; my $done = 0; my $seen = 0;
		for my $i (0 .. $#l) {
			$seen = 1 if $l[$i] =~ /^Maintainers List/;
			my ($t) = $l[$i] =~ /^([A-Z0-9].*)$/;
			if ($seen && !$done && defined $t && $i + 1 <= $#l &&
			    $l[$i + 1] =~ /^[A-Z]:\t/ && uc($t) gt uc($title)) {
				$l[$i] = "$entry\n\n$l[$i]"; $done = 1;
			}
		}
		die "MAINTAINERS: no place for $title\n" unless $done;
		open(my $out, ">", $f) or die "$f: $!\n";
		print $out @l;' "$1" "$2" "$repo/MAINTAINERS"
}
maintainers_file() {	# the path to add under our entry
	perl -e '
		my ($title, $path, $f) = @ARGV;
		open(my $in, "<", $f) or die "$f: $!\n";
		local $/; my $t = <$in>;
		$t =~ s{^(\Q$title\E\n(?:[A-Z]:\t.*\n)*)}{
			my @lines = split /\n/, $1; my $h = shift @lines;
			push @lines, "F:\t$path";
			my @f = sort grep { /^F:/ } @lines;
			my @o = grep { !/^F:/ } @lines;
			join("\n", $h, @o, @f) . "\n"
		}me or die "MAINTAINERS: no entry $title\n";
		open(my $out, ">", $f) or die "$f: $!\n";
		print $out $t;' "$MAINT_TITLE" "$1" "$repo/MAINTAINERS"
}

# --- 1: the uapi header -------------------------------------------------
MAINT_TITLE="$UPPER ${MAINT_WHAT:-INTERFACE}"
mkdir -p "$repo/include/uapi/linux"
cp "$UAPI" "$repo/include/uapi/linux/$NAME.h"
range=${IOCTL_RANGE:?}
perl -i -e '
	my ($line) = shift @ARGV; my $done = 0;
	while (<>) {
		if (!$done && /^\x27(.)\x27 / && $1 gt substr($line, 1, 1)) {
			print "$line\n"; $done = 1;
		}
		print;
	}
	die "ioctl-number.rst: no place for $line\n" unless $done;' \
	"$(printf "'%s'   %-6s linux/%-51s %s" "$type" "$range" "$NAME.h" "${IOCTL_COMMENT:-}" | sed 's/ *$//')" \
	"$repo/Documentation/userspace-api/ioctl/ioctl-number.rst"
maintainers_entry "$MAINT_TITLE" "$(printf '%s\nM:\t%s <%s>\nS:\tMaintained\nF:\tinclude/uapi/linux/%s.h' \
	"$MAINT_TITLE" "$ident_name" "$ident_mail" "$NAME")"
commit "uapi: $NAME: add the $NAME ioctl interface" \
"$(fold -s -w 72 <<EOF | sed 's/ *$//'
$SUMMARY

This patch adds the header alone: its structs, flags and ioctl numbers, and claims the ioctl type '$type' ($range) in ioctl-number.rst, which lists no other user of it. The driver, its documentation and its selftests follow.
EOF
)"

# --- 2: the driver --------------------------------------------------------
drv=$repo/drivers/misc/$NAME
mkdir -p "$drv"
objs=
for f in $DRIVER_SRCS; do
	cp "$f" "$drv/"
	case $f in *.c) objs="$objs $(basename "${f%.c}").o" ;; esac
done
# what only the teaching build has: patch 5 adds it back
perl -0 -i -pe 's/\n[^\n]*\n?module_param_named\(abi_version,[^;]*;\nMODULE_PARM_DESC\(abi_version,[^;]*;\n/\n/s' \
	"$drv/$(basename "$MAIN_C")"
grep -q 'module_param_named(abi_version' "$drv/$(basename "$MAIN_C")" &&
	{ echo "series.sh: abi_version is still a parameter" >&2; exit 1; }
# Allocations of one object: 7.0's kzalloc_obj() where the tree has it
# (its checkpatch asks for it), the same kzalloc(sizeof(*p), ...) before
to_tree() {	# files
	if grep -qs 'define kzalloc_obj' "$ksrc/include/linux/slab.h"; then
		perl -pi -e 's/\bk([mz])alloc\(sizeof\((\*+[\w>.-]+)\),\s*/k$1alloc_obj($2, /g' "$@"
	fi
}
to_tree "$drv"/*.c
# 6.13 has copy_struct_to_user(); before it the dispatcher has its own
have_cstu=
grep -qs copy_struct_to_user "$ksrc/include/linux/uaccess.h" && have_cstu=1
{
	echo "# SPDX-License-Identifier: GPL-2.0-only"
	echo "obj-\$(CONFIG_$UPPER) += $NAME.o"
	echo "$NAME-y := $(echo $objs | fold -s -w 56 | sed '2,$s/^/\t\t/; $!s/ *$/ \\/')"
	if [ -n "${KUNIT_SRC:-}" ]; then
		echo "obj-\$(CONFIG_${UPPER}_KUNIT_TEST) += $(basename "${KUNIT_SRC%.c}").o"
	fi
	[ -z "$have_cstu" ] || echo "ccflags-y += -DFFST_HAVE_COPY_STRUCT_TO_USER"
} >"$drv/Makefile"
kunit_kconfig=
if [ -n "${KUNIT_SRC:-}" ]; then
	cp "$KUNIT_SRC" "$drv/"
	printf 'CONFIG_KUNIT=y\nCONFIG_%s=y\nCONFIG_%s_KUNIT_TEST=y\n' "$UPPER" "$UPPER" >"$drv/.kunitconfig"
	kunit_kconfig=$(printf '\nconfig %s_KUNIT_TEST\n\ttristate "KUnit tests for %s" if !KUNIT_ALL_TESTS\n\tdepends on %s && KUNIT\n\tdefault KUNIT_ALL_TESTS\n\thelp\n\t  KUnit tests of the rules %s enforces on every ioctl: flag\n\t  validation, size negotiation, the CHECK_FIELDS answer, and the\n\t  checks of its table of operations at load.\n\n\t  If unsure, say N.\n' \
		"$UPPER" "$NAME" "$UPPER" "$NAME")
fi
kconfig=$(printf 'config %s\n\ttristate "%s"\n\thelp\n%s\n\n\t  To compile this driver as a module, choose M here: the\n\t  module will be called %s.\n\n\t  If unsure, say N.\n%s\n' \
	"$UPPER" "$PROMPT" "$(fold -s -w 62 <<<"$HELP" | sed 's/ *$//; s/^/\t  /')" "$NAME" "$kunit_kconfig")
perl -i -e '
	my ($block) = shift @ARGV; my $done = 0;
	while (<>) {
		if (!$done && /^source "drivers\/misc\//) { print "$block\n"; $done = 1; }
		print;
	}
	die "drivers/misc/Kconfig: no source line\n" unless $done;' "$kconfig" "$repo/drivers/misc/Kconfig"
printf 'obj-$(CONFIG_%s)\t+= %s/\n' "$UPPER" "$NAME" >>"$repo/drivers/misc/Makefile"
maintainers_file "drivers/misc/$NAME/"
kunit_words=
[ -z "${KUNIT_SRC:-}" ] || kunit_words="The KUnit tests (${UPPER}_KUNIT_TEST, with a .kunitconfig beside them) cover the dispatcher's pure logic and the checks of the table at load."
commit "misc: $NAME: add the driver" \
"$(fold -s -w 72 <<EOF | sed 's/ *$//'
$DRIVER_WHY

Every ioctl goes through one dispatcher (dispatch.c), driven by a table of the operations: it checks the struct's size against the first published one and PAGE_SIZE, copies it in as copy_struct_from_user() does, rejects unknown and conflicting flags and non-zero reserved fields, answers CHECK_FIELDS, and refuses an operation that changes state on a file not opened for writing, all before the operation's handler runs.  The table is checked as it compiles (FFST_OP(), FFST_ASSERT_LAYOUT()) and again at load.

$kunit_words
EOF
)"

# --- 3: the documentation -------------------------------------------------
"$here/rst.sh" "$UAPI" "$NAME" >"$repo/Documentation/userspace-api/$NAME.rst"
perl -i -e '
	my ($name) = shift @ARGV; my ($sect, $done) = (0, 0);
	while (<>) {
		$sect = 1 if /^Devices and I\/O/;
		if ($sect == 1 && /^\.\. toctree::/) { $sect = 2; }
		if ($sect == 2 && !$done && /^$/ && $seen) { print "   $name\n"; $done = 1; }
		$seen = 1 if $sect == 2 && /^   \S/;
		print;
	}
	die "index.rst: no Devices and I/O toctree\n" unless $done;' \
	"$NAME" "$repo/Documentation/userspace-api/index.rst"
maintainers_file "Documentation/userspace-api/$NAME.rst"
commit "docs: $NAME: document the ioctl interface" \
"$(fold -s -w 72 <<EOF | sed 's/ *$//'
Describe $NAME's rules in the order the driver applies them, each operation with its flags, fields and errors (the header's kernel-doc), how a program asks the running kernel what it supports, and how the structs have grown.
EOF
)"

# --- 4: the selftests -----------------------------------------------------
st=$repo/tools/testing/selftests/drivers/$NAME
mkdir -p "$st"
hdrs=
# flat, but for tests/ops/ (each op's tests), kept as a directory of its own
for f in $TEST_SRCS; do
	case $f in
	tests/ops/*)	rel=${f#tests/}; mkdir -p "$st/${rel%/*}"; cp "$f" "$st/$rel" ;;
	*)		rel=$(basename "$f"); cp "$f" "$st/" ;;
	esac
	case $f in *.h) hdrs="$hdrs $rel" ;; esac
done
extra=$(for f in $TEST_SRCS; do case $f in *.c) b=$(basename "$f"); case " $TEST_PROGS " in *" ${b%.c} "*) ;; *) echo "$b" ;; esac ;; esac; done | xargs)
{
	echo "# SPDX-License-Identifier: GPL-2.0"
	echo "CFLAGS += -Wall -O2 -pthread -I../.. \$(KHDR_INCLUDES)"
	echo "LDLIBS += -pthread"
	echo
	echo "TEST_GEN_PROGS := $(echo $TEST_PROGS | fold -s -w 60 | sed '2,$s/^/\t/; $!s/ *$/ \\/')"
	echo "LOCAL_HDRS += $(echo $hdrs)"
	echo
	echo "include ../../lib.mk"
	if [ -n "$extra" ]; then
		echo
		echo "\$(TEST_GEN_PROGS): $extra"
	fi
} >"$st/Makefile"
printf 'CONFIG_%s=m\n' "$UPPER" >"$st/config"
[ -z "${TEST_CONFIG:-}" ] || printf '%s\n' $TEST_CONFIG >>"$st/config"
printf '%s\n' $TEST_PROGS >"$st/.gitignore"
perl -e '
	my ($t, $f) = @ARGV; my $last = -1;
	open(my $in, "<", $f) or die "$f: $!\n";
	my @l = <$in>;
	for my $i (0 .. $#l) { $last = $i if $l[$i] =~ /^TARGETS \+= drivers\// && $l[$i] lt "TARGETS += $t\n"; }
	die "selftests/Makefile: no drivers TARGETS\n" if $last < 0;
	splice @l, $last + 1, 0, "TARGETS += $t\n";
	open(my $out, ">", $f) or die "$f: $!\n";
	print $out @l;' "drivers/$NAME" "$repo/tools/testing/selftests/Makefile"
maintainers_file "tools/testing/selftests/drivers/$NAME/"
commit "selftests: drivers/$NAME: test every rule on every ioctl" \
"$(fold -s -w 72 <<EOF | sed 's/ *$//'
$TESTS_WHY

Run with the module loaded (config: CONFIG_$UPPER=m), as root and as an unprivileged user; a test that needs root or a capability it lacks says so and skips.
EOF
)"

# --- 5: the teaching aid, apart -------------------------------------------
cp "$MAIN_C" "$drv/$(basename "$MAIN_C")"
to_tree "$drv/$(basename "$MAIN_C")"
commit "misc: $NAME: let abi_version make the driver answer as an older ABI" \
"$(fold -s -w 72 <<EOF | sed 's/ *$//'
With abi_version=N at load the driver accepts only the struct sizes and flags of its Nth release, so that the selftests can run a new program against the old behaviour and an old program against the new, on one kernel.  It serves the project's own testing and teaching; a kernel keeps one behaviour, so this patch is meant to be dropped.
EOF
)"

# --- the series -------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"
git -C "$repo" format-patch -q --cover-letter --base=HEAD~5 -o "$(cd "$out" && pwd)" HEAD~5
cover=$(ls "$out"/0000-cover-letter.patch)
version=$(sed -n 's/^VERSION = //p' "$ksrc/Makefile").$(sed -n 's/^PATCHLEVEL = //p' "$ksrc/Makefile")
# What checkpatch --strict still says, for the cover letter to explain
checks=$(cd "$ksrc" && for p in "$(cd "$top" && cd "$out" && pwd)"/000[1-9]*.patch; do
	perl scripts/checkpatch.pl --strict --terse --show-types "$p" 2>/dev/null | grep -E ': (CHECK|WARNING|ERROR):' || true
done)
harness=$(grep -c "SPACING: spaces preferred around that '\*'" <<<"$checks" || true)
others=$(grep -v "SPACING: spaces preferred around that '\*'" <<<"$checks" | grep -c . || true)
check_words=
if [ "$harness" -gt 0 ]; then
	check_words="checkpatch.pl --strict finds no error and no warning; $harness CHECKs remain, all \"spaces preferred around that '*'\" on FIXTURE_VARIANT(op) *v in the selftests: the kselftest harness's FIXTURE_VARIANT() names a type, which checkpatch reads as a multiplication."
fi
if [ "$others" -gt 0 ]; then
	check_words="$check_words Other findings of checkpatch.pl --strict, to be dealt with before sending: $(grep -v "SPACING: spaces preferred around that '\*'" <<<"$checks" | sed 's/^[^:]*://' | sort -u | paste -sd ';')"
fi
placeholder_words=
[ -z "$placeholder" ] || placeholder_words="The patches are signed off by a placeholder ($ident_name <$ident_mail>): set git's user.name and user.email and run make upstream again before sending anything."
blurb=$(fold -s -w 72 <<EOF | sed 's/ *$//'
$SUMMARY

The series is made against Linux $version (Debian's linux-source-$version) and checked there: each patch passes checkpatch.pl --strict, the driver builds in-tree with W=1 C=1, the header passes the UAPI header test, and the selftests pass in a VM running that kernel with the in-tree-built module.

Patch 5, abi_version, is a teaching aid: it lets the module answer as an older release so that old and new programs can be tested on one kernel. Upstream would not keep two behaviours; drop it.

${COVER_NOTES:-}

$check_words

$placeholder_words
EOF
)
blurb=$(cat -s <<<"$blurb" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
SUBJECT="$NAME: an ioctl interface designed flags first" BLURB=$blurb \
	perl -0 -i -pe 's/\*\*\* SUBJECT HERE \*\*\*/$ENV{SUBJECT}/; s/\*\*\* BLURB HERE \*\*\*/$ENV{BLURB}/' "$cover"
ls "$out"
