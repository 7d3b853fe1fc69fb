# SPDX-License-Identifier: GPL-2.0-only
# skel's own part of make lint, sourced by tests/lint.sh (the generic
# checks) last: the recipes of docs/extending.md.
# shellcheck shell=bash

# docs/extending.md quotes its recipes (docs/recipes/*.patch, which make
# check-template applies to a new project) and says how many places each
# takes: the hunks of its patch.
check "docs/extending.md: each recipe's places are the hunks of its patch" bash -c '
	for p in docs/recipes/*.patch; do
		n=$(grep -c "^@@" $p) f=$(grep -c "^diff --git" $p)
		grep -qF "\`$p\`: $n places in $f files." docs/extending.md ||
			echo "$p: $n places in $f files, which docs/extending.md does not say"
	done'

