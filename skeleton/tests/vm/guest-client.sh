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
expect "probe shows CONFIGURE's size and flags" '^configure +[0-9]+ +ADD\|SUB\|CHECK_FIELDS +value' \
	skel probe
expect "probe shows QUERY's size and flags" '^query +[0-9]+ +RESET\|CHECK_FIELDS +value changes' \
	skel probe
expect "raw: a struct a byte short of VER0 is EINVAL" 'size 23 .* -> EINVAL' \
	sh -c 'skel raw configure --size 23 --flags 0; true'
expect "raw: an unknown flag is EINVAL" 'flags .*unknown to this client.* -> EINVAL' \
	sh -c 'skel raw query --size 24 --flags 0x100; true'
expect "raw: a bigger struct with a non-zero tail is E2BIG" '-> E2BIG' \
	sh -c 'skel raw configure --size 32 --flags 0 --tail-byte 1; true'
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
