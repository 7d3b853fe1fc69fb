#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every relative link of the README and docs/ leads to a file or directory
# of the tree (a link's #anchor aside); prints those that do not.
set -euo pipefail
cd "$(dirname "$0")/../.."
for md in README.md docs/*.md skeleton/README.md skeleton/docs/*.md; do
	dir=$(dirname "$md")
	{ grep -o '\]([^)]*)' "$md" || true; } | sed 's/^](//; s/)$//' | while read -r target; do
		case $target in
		http://*|https://*|mailto:*|'#'*) continue ;;
		esac
		path=${target%%#*}
		[ -e "$dir/$path" ] || echo "$md: $target leads nowhere"
	done
done
