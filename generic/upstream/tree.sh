# SPDX-License-Identifier: GPL-2.0-only
# Sourced by series.sh and check.sh: the kernel tree a series is made
# against and checked on, as a git repository of the whole tree.
#
# pristine_tree KSRC prints a git repository of the tree KSRC, reset to
# its one commit with nothing else in it: KSRC itself if it is one (its
# .git/pristine says so), else a copy under $CACHE/upstream/ made once per
# tree (a few minutes: some 90,000 files).  Its commit is the series'
# base-commit: what git am needs to apply it with no fuzz, and what a
# reader needs to know which tree it was made on.  Debian's trees are
# released versions with Debian's patches; the cover letter says so.

# One series at a time on the trees: make upstream and check-upstream (of
# this project, or of another that shares the cache) reset a tree, check
# out its commits and build in it.  lock_trees, called by the script
# itself (not in a $(...), whose subshell would let go), holds the lock
# until the script exits; series.sh run by check.sh inherits it.
lock_trees() {
	[ -z "${UPSTREAM_TREE_LOCKED:-}" ] || return 0
	mkdir -p "$CACHE/upstream"
	exec 9>"$CACHE/upstream/.lock"
	if ! flock -n 9; then
		echo ">>> another make upstream or check-upstream is using $CACHE/upstream: waiting" >&2
		flock 9
	fi
	export UPSTREAM_TREE_LOCKED=1
}

pristine_tree() {	# ksrc -> repository
	local src=$1 repo
	if [ -e "$src/.git/pristine" ]; then
		repo=$src
	else
		repo=$CACHE/upstream/$(basename "$src")-$(cat "$src/.version" 2>/dev/null ||
			sed -n 's/^SUBLEVEL = //p' "$src/Makefile")/linux
	fi
	if [ ! -e "$repo/.git/pristine" ]; then
		echo ">>> making a git repository of $src (once)" >&2
		rm -rf "$repo"
		mkdir -p "$repo"
		cp -a "$src/." "$repo/" &&
		rm -f "$repo/.version" &&
		# -f: Debian's .gitignore ignores the whole top level
		git -C "$repo" init -q &&
		# no "git gc --auto" after the commits that follow: it would
		# repack some 90,000 objects in the background (minutes of CPU
		# beside the checks), holding the lock it inherits
		git -C "$repo" config gc.auto 0 &&
		git -C "$repo" add -A -f &&
		git -C "$repo" -c user.name=pristine -c user.email=pristine@localhost \
			commit -q -m "$(basename "$src"), as Debian ships it" >&2 &&
		touch "$repo/.git/pristine" || return 1
	fi
	git -C "$repo" am --abort >/dev/null 2>&1 || true
	git -C "$repo" checkout -q --detach "$(git -C "$repo" rev-list --max-parents=0 HEAD | tail -n 1)" &&
	git -C "$repo" reset -q --hard &&
	git -C "$repo" clean -qfdx || return 1
	echo "$repo"
}

# Whether git's identity can sign a series: set, and not an address
# nobody reads (RFC 2606's reserved names, localhost).  Exit 0 if it can.
real_identity() {
	local name mail
	name=$(git config user.name) && mail=$(git config user.email) || return 1
	[ -n "$name" ] || return 1
	case "$mail" in
	"" | *@localhost | *@localhost.* | *.invalid | *.example | *.test | \
	*@example.com | *@example.org | *@example.net)
		return 1 ;;
	esac
}

# Where a series puts things, from series.conf's UPSTREAM_DEST: a real
# interface goes to drivers/misc (its header exported from include/uapi,
# its ioctl range claimed, its page among the userspace API's devices); a
# teaching example goes to samples/, where the kernel keeps code written
# to be read (samples/kfifo, samples/kobject): its header stays in the
# sample (samples/NAME/uapi/linux/NAME.h, never exported), it claims no
# ioctl range, and its page sits beside ioctl-number and ioctl-decoding.
# Sets KSYM (its Kconfig symbol), DRV, HDR, DOC (paths in the tree), DOC_INDEX
# (the toctree it joins) and ST (its selftests' directory, under
# tools/testing/selftests/).
# shellcheck disable=SC2034	# the variables are the caller's
upstream_paths() {
	UPPER=$(echo "$NAME" | tr a-z A-Z)
	case ${UPSTREAM_DEST:-drivers/misc} in
	drivers/misc)
		KSYM=$UPPER DRV=drivers/misc/$NAME HDR=include/uapi/linux/$NAME.h
		DOC=Documentation/userspace-api/$NAME.rst
		DOC_INDEX=Documentation/userspace-api/index.rst ST=drivers/$NAME ;;
	samples)
		KSYM=SAMPLE_$UPPER DRV=samples/$NAME HDR=samples/$NAME/uapi/linux/$NAME.h
		DOC=Documentation/userspace-api/ioctl/$NAME.rst
		DOC_INDEX=Documentation/userspace-api/ioctl/index.rst ST=samples/$NAME ;;
	*)
		echo "upstream: UPSTREAM_DEST is drivers/misc or samples, not ${UPSTREAM_DEST}" >&2
		return 1 ;;
	esac
}
