#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The test job inside the VM, for any interface made on the generic core:
# the suite in every cell of the ABI matrix, {current, each frozen
# release's program} x {abi_version=LATEST .. 0} x {64, 32-bit}, each
# program as root and as uid 65534 with no capabilities.  Markers
# (guest-lib.sh) let the host count each run and judge the loading.
#
# The module is $VM_TAG (the guest's init exports it), its programs
# /tests/TOPIC_test[-vN][-m32] for each TOPIC in /tests/topics.  Set by the
# caller:
#   ko          the module (default /$VM_TAG.ko)
#   tag         put before each label and marker (make mutate: "NAME.")
#   cells       only the cells that match one of these patterns, e.g.
#               "abi*.current.64" (default: every cell, then the hooks)
#   identities  default "root uid65534"
# and, in /guest-hooks.sh if the project has one (sourced):
#   hook_args CELL      prints what to add to each program's arguments in
#                       CELL (the harness's -t/-T/-F/-f)
#   hook_loaded ABI     runs with the module loaded at ABI, after the cell's
#                       programs (not when $cells narrows the run)
#   hook_after          runs after the matrix, the module unloaded (idem)
. /guest-lib.sh
[ -r /guest-hooks.sh ] && . /guest-hooks.sh
name=${VM_TAG:?}
ko=${ko:-/$name.ko}
tag=${tag:-}
cells=${cells:-}
identities=${identities:-root uid65534}
# the variable that tells a program its cell's ABI: FOO_ABI for module foo
abivar=$(echo "$name" | tr 'a-z-' 'A-Z_')_ABI

wanted() {	# cell: is it among $cells?
	[ -z "$cells" ] && return 0
	for p in $(echo "$cells" | tr ',' ' '); do
		# shellcheck disable=SC2254
		case $1 in
		$p) return 0 ;;
		esac
	done
	return 1
}

wanted_abi() {	# abi: is a cell of it among $cells?
	[ -z "$cells" ] && return 0
	for p in $(echo "$cells" | tr ',' ' '); do
		# shellcheck disable=SC2254
		case abi$1 in
		${p%%.*}) return 0 ;;
		esac
	done
	return 1
}

# Loaded with no parameter, the module is its latest ABI.
if ! insmod "$ko"; then
	mark "check ${tag}insmod failed"
	exit
fi
latest=$(cat /sys/module/$name/parameters/abi_version)
mark "check ${tag}latest abi_version=$latest"
rmmod "$name" || mark "check ${tag}rmmod failed"

# One past the latest is refused at load by the module's own check, with
# its own message: a module that fails to load for any other reason (a
# wrong vermagic, a bad relocation) fails this check instead.
next=$((latest + 1))
seen=$(dmesg | wc -l)
if insmod "$ko" abi_version=$next 2>/tmp/insmod.err; then
	mark "check ${tag}abi_version=$next loaded failed"
	rmmod "$name"
elif dmesg | tail -n +$((seen + 1)) |
     grep -q "$name: abi_version=$next: this module knows 0 to $latest" &&
     grep -q 'Invalid argument' /tmp/insmod.err; then
	mark "check ${tag}abi_version=$next rejected"
else
	mark "check ${tag}abi_version=$next refused otherwise failed"
	cat /tmp/insmod.err
	dmesg | tail -n 5
fi

releases=$(cd /tests && ls -d *_test-v* 2>/dev/null | grep -v -- '-m32$' |
	   sed 's/.*_test-//' | sort -u)
abi=$latest
while [ "$abi" -ge 0 ]; do
	if ! wanted_abi "$abi"; then
		abi=$((abi - 1))
		continue
	fi
	if ! insmod "$ko" abi_version=$abi; then
		mark "check ${tag}insmod abi_version=$abi failed"
		abi=$((abi - 1))
		continue
	fi
	for bin in current $releases; do
		for bits in 64 32; do
			cell=abi$abi.$bin.$bits
			wanted "$cell" || continue
			suffix=
			[ "$bin" != current ] && suffix=-$bin
			[ "$bits" = 32 ] && suffix=$suffix-m32
			args=
			command -v hook_args >/dev/null && args=$(hook_args "$cell")
			for topic in $(cat /tests/topics); do
				exe=/tests/${topic}_test$suffix
				# The run is told its cell's ABI: it must not
				# learn it from the module under test.
				for who in $identities; do
					if [ "$who" = root ]; then
						run "$tag$cell.$topic.root" env "$abivar=$abi" $exe $args
					else
						run "$tag$cell.$topic.$who" su -s /bin/sh \
							-c "$abivar=$abi $exe $args" nobody
					fi
				done
			done
		done
	done
	[ -z "$cells" ] && command -v hook_loaded >/dev/null && hook_loaded "$abi"
	if rmmod "$name"; then
		mark "check ${tag}rmmod abi_version=$abi ok"
	else
		mark "check ${tag}rmmod abi_version=$abi failed"
	fi
	abi=$((abi - 1))
done

[ -z "$cells" ] && command -v hook_after >/dev/null && hook_after
exit 0
