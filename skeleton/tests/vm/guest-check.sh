#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The test job inside the VM: the suite in every cell of the ABI matrix,
# {current, each frozen release's binary} x {abi_version=LATEST .. 0} x
# {64, 32-bit}, each as root and as uid 65534 with no capabilities, then
# the client; markers let the host count each run.
#
# From guest-mutate.sh: $ko is the module to test (default /skel.ko),
# $tag goes before each label and marker, and only=1 runs the current
# 64-bit suite as root at each ABI, with no client.
. /guest-lib.sh
ko=${ko:-/skel.ko}
tag=${tag:-}

# Loaded with no parameter, the module is its latest ABI.
if ! insmod "$ko"; then
	mark "check ${tag}insmod failed"
	exit
fi
latest=$(cat /sys/module/skel/parameters/abi_version)
mark "check ${tag}latest abi_version=$latest"
rmmod skel || mark "check ${tag}rmmod failed"
# One past the latest is refused at load.
if insmod "$ko" abi_version=$((latest + 1)) 2>/dev/null; then
	mark "check ${tag}abi_version=$((latest + 1)) loaded failed"
	rmmod skel
fi

abi=$latest
while [ "$abi" -ge 0 ]; do
	if ! insmod "$ko" abi_version=$abi; then
		mark "check ${tag}insmod abi_version=$abi failed"
		abi=$((abi - 1))
		continue
	fi
	# the current program, then each frozen release's (/skel_test-vN)
	for bin in current $(cd / && ls -d skel_test-v* | grep -v -- -m32 |
			     sed 's/^skel_test-//'); do
		for bits in 64 32; do
			[ -n "${only:-}" ] && [ $bin.$bits != current.64 ] && continue
			exe=/skel_test
			[ $bin != current ] && exe=$exe-$bin
			[ $bits = 32 ] && exe=$exe-m32
			cell=${tag}abi$abi.$bin.$bits
			# The run is told its cell's ABI: it must not learn it
			# from the module under test.
			run $cell.root env SKEL_ABI=$abi $exe
			[ -n "${only:-}" ] && continue
			run $cell.uid65534 su -s /bin/sh -c "SKEL_ABI=$abi $exe" nobody
		done
	done
	[ "$abi" = "$latest" ] && [ -z "${only:-}" ] && run client /guest-client.sh
	rmmod skel || mark "check ${tag}rmmod abi_version=$abi failed"
	abi=$((abi - 1))
done
