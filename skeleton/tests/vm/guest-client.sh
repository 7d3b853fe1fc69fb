#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The client against the loaded module, as TAP: probe shows every op as
# CHECK_FIELDS answers it, raw shows the dispatcher's errnos.
n=0
expect() {	# description, output pattern, command...
	what=$1 pattern=$2
	shift 2
	n=$((n + 1))
	if "$@" >/tmp/client.out 2>&1 && grep -qE -e "$pattern" /tmp/client.out; then
		echo "ok $n $what"
	else
		echo "not ok $n $what"
		sed 's/^/# /' /tmp/client.out
	fi
}
# Every op, its size, and its flags and fields by name: the client's
# header is the module's, so no bit or byte is unknown to it (the names
# come from the header, userspace/ops.sh: no list here to keep).
probe_names_everything() {
	skel probe && skel probe | awk '
		NR > 1 && (NF < 3 || $3 !~ /CHECK_FIELDS$/ ||
			   /unknown to this client|does not know|not in this kernel/) { bad = 1 }
		END { exit bad }'
}
expect "probe names every flag and field of every op" '^op ' probe_names_everything
expect "raw: a struct a byte short of VER0 is EINVAL" 'size 23 .* -> EINVAL' \
	sh -c 'skel raw configure --size 23 --flags 0; true'
expect "raw: an unknown flag is EINVAL" 'flags .*unknown to this client.* -> EINVAL' \
	sh -c 'skel raw query --size 24 --flags 0x100; true'
# (past any struct an op may have: the dispatcher holds 64 bytes)
expect "raw: a bigger struct with a non-zero tail is E2BIG" '-> E2BIG' \
	sh -c 'skel raw configure --size 128 --flags 0 --tail-byte 1; true'
# Every op the client knows, the module has: none is "not in this kernel".
expect "probe finds every op of the client in the module" '^op ' \
	sh -c 'skel probe | tee /dev/stderr | grep -q "not in this kernel" && exit 1; skel probe'
# The counter is the device's: what one run of the client did, the next
# sees.
expect "the counter outlives a run of the client" '^value 7, changes 2$' \
	sh -c 'skel query --reset >/dev/null && skel configure 5 &&
	       skel configure 2 --add && skel query'
# The plan last: TAP allows it, and no count is kept by hand.
echo "1..$n"
