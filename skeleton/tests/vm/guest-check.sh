#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The test job inside the VM: the suite in every cell of the ABI matrix,
# {current, v0 binary} x {abi_version=LATEST .. 0} x {64, 32-bit}, each as
# root and as uid 65534 with no capabilities, then the client; markers
# let the host count each run.
. /guest-lib.sh

# Loaded with no parameter, the module is its latest ABI.
if ! insmod /skel.ko; then
	mark "check insmod failed"
	exit
fi
latest=$(cat /sys/module/skel/parameters/abi_version)
mark "check latest abi_version=$latest"
rmmod skel || mark "check rmmod failed"
# One past the latest is refused at load.
if insmod /skel.ko abi_version=$((latest + 1)) 2>/dev/null; then
	mark "check abi_version=$((latest + 1)) loaded failed"
	rmmod skel
fi

abi=$latest
while [ "$abi" -ge 0 ]; do
	if ! insmod /skel.ko abi_version=$abi; then
		mark "check insmod abi_version=$abi failed"
		abi=$((abi - 1))
		continue
	fi
	for bin in current v0; do
		for bits in 64 32; do
			exe=/skel_test
			[ $bin = v0 ] && exe=$exe-v0
			[ $bits = 32 ] && exe=$exe-m32
			cell=abi$abi.$bin.$bits
			# The run is told its cell's ABI: it must not learn it
			# from the module under test.
			run $cell.root env SKEL_ABI=$abi $exe
			run $cell.uid65534 su -s /bin/sh -c "SKEL_ABI=$abi $exe" nobody
		done
	done
	[ "$abi" = "$latest" ] && run client /guest-client.sh
	rmmod skel || mark "check rmmod abi_version=$abi failed"
	abi=$((abi - 1))
done
