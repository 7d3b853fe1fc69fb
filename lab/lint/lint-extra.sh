# SPDX-License-Identifier: GPL-2.0-only
# flagsfirst's own part of make lint, sourced by generic/lint/lint.sh after
# the checks every interface gets (check, files, checkpatch, $src, $out,
# $kernels and $hdr are its): the generic core's build-time rules and
# its skeleton, cppcheck, syzkaller's hand-written description, the
# teaching material, the man pages' coverage of the header, and the
# packaging (dkms, make install, modinfo).
# shellcheck shell=bash

# uapi-lint itself: each seeded defect found, real structs as pahole has them
check "uapi-lint's oracles: each seeded defect found, and real structs as pahole shows them" \
	lab/lint/uapi-lint-oracles.sh

# The generic core's build-time rules: each broken table or struct fails
# with its own message (against the first kernel built on the host).
kdir=$(awk '$3 == "-" { print $2; exit }' "$kernels")
check "broken op tables and structs fail the build, each with its rule" \
	lab/lint/broken-tables.sh "$kdir"
# skeleton/, what scripts/new-interface copies and renames, is a real tree:
# it builds, warning-free, and checkpatch finds nothing in it.
check "skeleton: checkpatch --strict on module/ and uapi/" \
	checkpatch -f $(files 'skeleton/module/*.[ch]' 'skeleton/uapi/*')
check "skeleton: the module builds with W=1 C=1 (first kernel)" bash -c "
	rm -rf $out/skel && cp -rL skeleton $out/skel &&
	make -s -C $kdir M=$out/skel W=1 C=1 modules 2>&1 | grep -v 'Skipping BTF' | grep . && exit 1; test -e $out/skel/module/skel.ko"
check "skeleton: its suite and client build with -Werror" bash -c "
	make -s -C $out/skel/tests KSFT_DIR=$src/tools/testing/selftests >/dev/null &&
	make -s -C $out/skel/userspace >/dev/null"
# The generic files include nothing of flagsfirst's own and name none of
# its symbols: a generated interface receives them renamed, and they are
# called, never calling.  And nothing #includes a .c file.
# Every generic file -- C, shell, Perl, make -- names no interface: the
# interface's name comes from its header (uapi/linux/NAME.h), so a
# generated project's copy is the same file with only the core's prefix
# renamed.
check "generic/ names no interface (flagsfirst, skel) in any file" bash -c \
	"! git grep -n -i -e flagsfirst -e skel -- generic/"
check "generic/'s C includes nothing of flagsfirst's, and no file #includes a .c" bash -c \
	"! grep -nE '#include \"(ioctl|flagsfirst|table|entry|quota|watch|helpers)|<linux/flagsfirst.h>|ffst_ops|FLAGSFIRST_|FFST_IOC_TYPE' \
		\$(git ls-files 'generic/*.[ch]') &&
	 ! git grep -nE '#[[:space:]]*include[[:space:]]*[<\"].*\\.c[>\"]' -- '*.[ch]'"

# User space: the compilers' warnings are errors already (the bench's
# too); then cppcheck.
check "the bench builds with -Wall -Wextra -Werror" bash -c "make -s -C lab/bench >/dev/null"
check "cppcheck: userspace/, tests/" \
	cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability,performance \
		--inline-suppr --suppress=missingIncludeSystem -Iuapi \
		-D__x86_64__ -D__linux__ userspace/flagsfirst.c userspace/survey*.c tests/flagsfirst_torture.c tests/torture_*.c \
		lab/bench/flagsfirst_bench.c

check "one syllabus: docs/syllabus.md, the tour, the README and design.md agree, and its tests exist" \
	lab/lint/syllabus.sh
check "every relative link of the README and docs/ resolves" lab/lint/links.sh
check "the README is a front door: 150 lines at most" \
	bash -c '[ "$(wc -l <README.md)" -le 150 ] || echo "README.md: $(wc -l <README.md) lines"'
# The man pages name every flag and errno of the header.
check "man pages name every flag and errno of the uapi header" \
	bash -c "lab/lint/man-coverage.sh >$out/man.log || cat $out/man.log"

# Packaging: dkms builds against the extracted Debian headers; make install
# and uninstall into a DESTDIR leave exactly the expected tree.
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
dkms remove -m flagsfirst -v "$version" --all >/dev/null 2>&1 || true
rm -rf "/usr/src/flagsfirst-$version"
check "dkms add" bash -c "dkms add $top >/dev/null"
while read -r kver kdir root; do
	if [ "$root" = - ]; then
		check "dkms build against $kver" bash -c \
			"dkms build -m flagsfirst -v $version -k $kver --kernelsourcedir $kdir >$out/dkms.log 2>&1 ||
			 { tail -n 20 $out/dkms.log; tail -n 20 /var/lib/dkms/flagsfirst/$version/build/make.log; }"
		continue
	fi
	# The chroot's own dkms, on a copy of the tree under its /usr/src.
	check "dkms add, build against $kver (in sid's chroot)" bash -c "
		rm -rf $root/usr/src/flagsfirst-$version $root/var/lib/dkms/flagsfirst &&
		git ls-files | tar -c -T - | tar -x -C \$(mkdir -p $root/usr/src/flagsfirst-$version && echo $root/usr/src/flagsfirst-$version) &&
		generic/vm/in-chroot.sh $root dkms add -m flagsfirst -v $version >$out/dkms.log 2>&1 &&
		generic/vm/in-chroot.sh $root dkms build -m flagsfirst -v $version -k $kver \
			--kernelsourcedir $kdir >>$out/dkms.log 2>&1 ||
		{ tail -n 20 $out/dkms.log; tail -n 20 $root/var/lib/dkms/flagsfirst/$version/build/make.log; }
		rm -rf $root/usr/src/flagsfirst-$version $root/var/lib/dkms/flagsfirst"
done <"$kernels"
dkms remove -m flagsfirst -v "$version" --all >/dev/null 2>&1 || true
rm -rf "/usr/src/flagsfirst-$version"

read -r kver kdir _ <"$kernels"
dest=$out/destdir
check "make install DESTDIR=... PREFIX=/usr" bash -c \
	"make -s install KDIR=$kdir DESTDIR=$dest PREFIX=/usr >$out/install.log 2>&1 || cat $out/install.log"
check "make install put every file in place" bash -c "
	for f in usr/include/linux/flagsfirst.h usr/bin/flagsfirst \
		 usr/share/man/man1/flagsfirst.1 usr/share/man/man4/flagsfirst.4 \
		 usr/share/man/man2const/FLAGSFIRST_IOC_SET.2const \
		 usr/share/man/man2const/FLAGSFIRST_IOC_WATCH.2const; do
		[ -f $dest/\$f ] || echo missing \$f
	done
	find $dest/lib/modules -name flagsfirst.ko | grep -q . || echo missing flagsfirst.ko"
# Every module parameter of main.c has its MODULE_PARM_DESC(), and each
# that takes a range (module_param_cb()) says it and its type.
params=$(grep -cE '^module_param_(named|cb)\(' module/main.c)
ranged=$(grep -c '^module_param_cb(' module/main.c)
check "modinfo shows version, description, license, author, $params parameters, $ranged ranges" bash -c "
	ko=\$(find $dest/lib/modules -name flagsfirst.ko | head -n 1)
	for k in version description license author parm; do
		/sbin/modinfo \$ko | grep -q \"^\$k:\" || echo modinfo lacks \$k
	done
	[ \$(/sbin/modinfo -F parm \$ko | grep -c ':') = $params ] || echo not $params described parameters
	[ \$(/sbin/modinfo -F parm \$ko | grep -c '(0 to 2147483647).*(uint)') = $ranged ] ||
		echo not $ranged parameters with their range and type"
check "make uninstall leaves no file behind" bash -c \
	"make -s uninstall KDIR=$kdir DESTDIR=$dest PREFIX=/usr >/dev/null 2>&1; find $dest -type f"

