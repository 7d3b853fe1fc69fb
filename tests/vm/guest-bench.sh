#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The job of make bench inside the VM: one run of the benchmark.
insmod /flagsfirst.ko || echo "=== flagsfirst: insmod failed ==="
echo "=== flagsfirst: bench begin ==="
/flagsfirst_bench
echo "=== flagsfirst: bench end $? ==="
