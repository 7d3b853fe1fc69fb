#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The test job inside the VM: the suite in every cell of the ABI matrix,
# {current, v0 binary} x {abi_version=1, 0} x {64, 32-bit}, each as root and
# as uid 65534 with no capabilities.  Markers let the host count each run.
. /guest-lib.sh

if insmod /flagsfirst.ko abi_version=2 2>/dev/null; then
	mark "check abi_version=2 loaded"
	rmmod flagsfirst
else
	mark "check abi_version=2 rejected"
fi

for abi in 1 0; do
	if ! insmod /flagsfirst.ko abi_version=$abi; then
		mark "check insmod abi_version=$abi failed"
		continue
	fi
	for bin in current v0; do
		for bits in 64 32; do
			exe=/flagsfirst_test
			[ $bin = v0 ] && exe=$exe-v0
			[ $bits = 32 ] && exe=$exe-m32
			# The CLOEXEC race does not depend on the ABI: run it once.
			skip="-F race"
			[ "$abi.$bin.$bits" = 1.current.64 ] && skip=
			cell=abi$abi.$bin.$bits
			run $cell.root $exe $skip
			run $cell.uid65534 su -s /bin/sh -c "$exe $skip" nobody
		done
	done
	if rmmod flagsfirst; then
		mark "check rmmod abi_version=$abi ok"
	else
		mark "check rmmod abi_version=$abi failed"
	fi
done
