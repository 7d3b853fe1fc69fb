#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest's jobs: the markers the host counts them by, each
# "=== TAG: ... ===" with the tag the guest's init exports as VM_TAG (the
# interface's name; the host's lib.sh takes the same).

mark() {
	echo "=== ${VM_TAG:?}: $* ==="
}

# run LABEL COMMAND...: one counted run, its output between two markers.
run() {
	label=$1
	shift
	echo "=== ${VM_TAG:?}: run $label ==="
	"$@"
	echo "=== ${VM_TAG:?}: exit $label $? ==="
}
