#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make upstream: the interface as a patch series for Linux, written with
# git format-patch and a cover letter into OUT, from the files the
# project builds (nothing kept twice):
#
#   series.sh KSRC OUT      (from the project's top directory)
#
# KSRC is a kernel tree (Debian's linux-source, or the git repository
# make check-upstream keeps of one): the series is committed on top of a
# git repository of the whole tree (tree.sh, made once under the cache),
# so that git am applies it there with no fuzz and its base-commit is
# that tree's.  The project's upstream/series.conf (sourced; see its
# comments) says what goes where.  The patches, each of which builds:
#
#   1. the uapi header, its ioctl-number.rst line, a MAINTAINERS entry
#   2. the driver under drivers/misc/NAME/, its Kconfig entry and Makefile
#      line, and its KUnit tests with their .kunitconfig (if it has any)
#   3. Documentation/userspace-api/NAME.rst, from the header's kernel-doc
#   4. the selftests, tools/testing/selftests/drivers/NAME/, on lib.mk
#
# The abi_version parameter (a module that answers as an older ABI) is
# the project's own testing aid and stays out.  Each patch adding files
# adds their path to MAINTAINERS too.  Commits are authored and signed
# off by git's configured identity: without one, or with a placeholder,
# the series is not written.
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

# The author, the Signed-off-by and the MAINTAINERS entry's M: are the
# user's: git's identity, never one made up here.  (make check-upstream,
# on a machine with none, passes its own and says so:
# UPSTREAM_CHECK_IDENTITY=1.)
# shellcheck source=tree.sh
. "$here/tree.sh"
if [ "${UPSTREAM_CHECK_IDENTITY:-0}" != 1 ] && ! real_identity; then
	echo "series.sh: the patches are authored and signed off by you, and git's identity is" \
	     "'$(git config user.name) <$(git config user.email)>': set a real one" \
	     "(git config --global user.name 'Your Name'; git config --global user.email you@your.domain)" >&2
	exit 1
fi
ident_name=$(git config user.name)
ident_mail=$(git config user.email)
export GIT_AUTHOR_NAME=$ident_name GIT_AUTHOR_EMAIL=$ident_mail
export GIT_COMMITTER_NAME=$ident_name GIT_COMMITTER_EMAIL=$ident_mail

cache_var=${UPPER}_CACHE
CACHE=${!cache_var:-$HOME/.cache/$NAME}
lock_trees
repo=$(pristine_tree "$ksrc") || exit 1
base=$(git -C "$repo" rev-parse HEAD)
# the repository is left as it was found: the tree at its base
trap 'git -C "$repo" reset -q --hard "$base"; git -C "$repo" clean -qfdx' EXIT

commit() {	# subject, body (wrapped at 72)
	# -f: Debian's .gitignore ignores the whole top level
	git -C "$repo" add -A -f
	printf '%s\n\n%s\n' "$1" "$2" | git -C "$repo" commit -q -s -F -
}

# MAINTAINERS: the entry, where scripts/parse-maintainers.pl would sort
# it -- after the entry whose title is the last before its own (titles
# compared in upper case, "THE REST" last), which may not be the first
# place a search from the top finds: the file is not sorted everywhere --
# its fields in that script's preferred order (M, L, S, F), then one F:
# line per patch that adds files, kept sorted.  An entry is a title line
# followed by its field lines ("X:\t..."), entries separated by a blank
# line; the entries start after the file's preamble, which ends with a
# line of dashes.
maintainers_entry() {	# title entry
	perl -e '
		my ($title, $entry, $f) = @ARGV;
		open(my $in, "<", $f) or die "$f: $!\n";
		my @l = <$in>; my ($start, $at, $best);
		sub key { my $k = uc shift; $k =~ s/THE REST/ZZZZZZ/g; $k }
		for my $i (1 .. $#l) {
			$start //= $i + 1 if $l[$i - 1] =~ /^-{5,}$/;
		}
		die "MAINTAINERS: no line of dashes before the entries\n" unless $start;
		for my $i ($start .. $#l - 1) {
			next unless $l[$i - 1] eq "\n" || $i == $start;
			next if $l[$i] eq "\n" || $l[$i] =~ /^[A-Z]:\t/;
			next unless $l[$i + 1] =~ /^[A-Z]:\t/;	# a title
			(my $t = $l[$i]) =~ s/\n$//;
			$at //= $i;	# before the first entry, if none is before ours
			next unless key($t) lt key($title);
			next if defined $best && key($t) le $best;
			$best = key($t);
			my $j = $i + 1;
			$j++ while $j <= $#l && $l[$j] ne "\n";
			$at = $j + 1;	# after this entry and its blank line
		}
		die "MAINTAINERS: no entries\n" unless defined $at;
		splice @l, $at, 0, "$entry\n", "\n";
		open(my $out, ">", $f) or die "$f: $!\n";
		print $out @l;' "$1" "$2" "$repo/MAINTAINERS"
}
maintainers_file() {	# the path to add under our entry
	perl -e '
		my ($title, $path, $f) = @ARGV;
		open(my $in, "<", $f) or die "$f: $!\n";
		local $/; my $t = <$in>;
		$t =~ s{(?<=\n\n)(\Q$title\E\n(?:[A-Z]:\t.*\n)*)}{
			my @lines = split /\n/, $1; my $h = shift @lines;
			push @lines, "F:\t$path";
			my @f = sort grep { /^F:/ } @lines;
			my @o = grep { !/^F:/ } @lines;
			join("\n", $h, @o, @f) . "\n"
		}e or die "MAINTAINERS: no entry $title\n";
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
maintainers_entry "$MAINT_TITLE" "$(printf '%s\nM:\t%s <%s>\nL:\t%s\nS:\tMaintained\nF:\tinclude/uapi/linux/%s.h' \
	"$MAINT_TITLE" "$ident_name" "$ident_mail" "${MAINT_LIST:-linux-kernel@vger.kernel.org}" "$NAME")"
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
# What only the project's own testing has stays out: the abi_version
# parameter (the variable stays, set to the latest ABI at load) and
# MODULE_VERSION, which in-tree code does not carry.
perl -0 -i -pe 's{/\*[^\n]*unless told[^\n]*\*/\n}{/* The ABI in force: the latest, which the ops\x27 tables say (ioctl.c). */\n}s;
	s/module_param_named\(abi_version,[^;]*;\nMODULE_PARM_DESC\(abi_version,[^;]*;\n//s;
	s/^MODULE_VERSION\([^;]*;\n//m' "$drv/$(basename "$MAIN_C")"
if grep -q -e 'module_param_named(abi_version' -e 'unless told' -e MODULE_VERSION "$drv/$(basename "$MAIN_C")"; then
	echo "series.sh: abi_version is still a parameter, or MODULE_VERSION is still there" >&2
	exit 1
fi
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
# The page goes last in the entries of the "Devices and I/O" toctree:
# after its options (":maxdepth: 1") and the blank line that ends them.
perl -i -e '
	my ($name) = shift @ARGV; my ($sect, $done, $seen) = (0, 0, 0);
	while (<>) {
		$sect = 1 if /^Devices and I\/O/;
		if ($sect == 1 && /^\.\. toctree::/) { $sect = 2; }
		if ($sect == 2 && !$done && /^\s*$/ && $seen) { print "   $name\n"; $done = 1; }
		$seen = 1 if $sect == 2 && /^   [^\s:]/;
		print;
	}
	if ($sect == 2 && !$done && $seen) { print "   $name\n"; $done = 1; }
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
	echo "TEST_FILES := settings"
	echo
	echo "include ../../lib.mk"
	if [ -n "$extra" ]; then
		echo
		echo "\$(TEST_GEN_PROGS): $extra"
	fi
} >"$st/Makefile"
# kselftest's runner gives a program 45 s unless told: the slowest of
# these takes minutes on an emulated machine
printf '%s\n' "timeout=${TEST_TIMEOUT:-900}" >"$st/settings"
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

# --- the series -------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"
git -C "$repo" format-patch -q --cover-letter --base="$base" -o "$(cd "$out" && pwd)" "$base"
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
blurb=$(fold -s -w 72 <<EOF | sed 's/ *$//'
$SUMMARY

The series is made against Linux $version as Debian ships it (linux-source-$version; the base-commit below is a git repository of that whole tree, not a commit of mainline) and checked there: after every patch the tree builds (the driver with W=1 C=1, the selftests with -Werror), each patch passes checkpatch.pl --strict, MAINTAINERS parses as before with one entry more (scripts/parse-maintainers.pl), the documentation builds with Sphinx with no new warning, the header passes the UAPI header test, and the selftests pass under the kselftest runner in a VM running that kernel with the in-tree-built module. Rebase it on the tree it is sent to.

${COVER_NOTES:-}

$check_words
EOF
)
blurb=$(cat -s <<<"$blurb" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
SUBJECT="$NAME: an ioctl interface designed flags first" BLURB=$blurb \
	perl -0 -i -pe 's/\*\*\* SUBJECT HERE \*\*\*/$ENV{SUBJECT}/; s/\*\*\* BLURB HERE \*\*\*/$ENV{BLURB}/' "$cover"
ls "$out"
