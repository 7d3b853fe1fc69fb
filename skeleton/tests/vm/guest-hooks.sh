#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# skel's part of the generic guest-check.sh, sourced by it: the client,
# once, with the module loaded at its latest ABI.

hook_loaded() {	# abi
	[ "$1" = "$latest" ] && run client /guest-client.sh
}
