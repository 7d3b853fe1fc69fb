#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The test job inside the VM: the suite as root, then as uid 65534 with no
# capabilities, then an unload.  Markers let the host count each run.
run() {
	label=$1
	shift
	echo "=== flagsfirst: run $label ==="
	"$@"
	echo "=== flagsfirst: exit $label $? ==="
}

run root /flagsfirst_test
run uid65534 su -s /bin/sh -c /flagsfirst_test nobody
if rmmod flagsfirst; then
	echo "=== flagsfirst: rmmod ok ==="
else
	echo "=== flagsfirst: rmmod failed ==="
fi
