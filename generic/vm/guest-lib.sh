#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the guest's jobs: the markers the host counts them by.

mark() {
	echo "=== flagsfirst: $* ==="
}

# run LABEL COMMAND...: one counted run, its output between two markers.
run() {
	label=$1
	shift
	echo "=== flagsfirst: run $label ==="
	"$@"
	echo "=== flagsfirst: exit $label $? ==="
}
