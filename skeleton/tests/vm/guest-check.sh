#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The test job inside the VM: the suite as root and as uid 65534 with no
# capabilities, between markers the host counts.
. /guest-lib.sh

if ! insmod /skel.ko; then
	mark "check insmod failed"
	exit
fi
run root /skel_test
run uid65534 su -s /bin/sh -c /skel_test nobody
run client /guest-client.sh
rmmod skel || mark "check rmmod failed"
