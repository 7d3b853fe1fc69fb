#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-only
# make upstream: each op's ABI table keeps its last row.  An interface's
# first version in a tree has no older release to answer as: the rows
# before the last are the project's history (its abi_version parameter,
# which the series leaves out, answers with them).
#
#   in-tree-abi.pl FILE...
#
# Rewrites each file in place: in every "static const struct ffst_op_abi
# NAME[] = { ... };" the last row stays, without its "[N] =" designator,
# and a comment right above the table that speaks of ABIs goes with the
# other rows.  Dies if no file has such a table.
use strict;
use warnings;

die "usage: in-tree-abi.pl FILE...\n" unless @ARGV;
my $tables = 0;
for my $f (@ARGV) {
	open(my $in, '<', $f) or die "$f: $!\n";
	my $c = do { local $/; <$in> };
	close($in);
	$c =~ s{((?:/\*(?:(?!\*/).)*\*/\n)?)(static const struct ffst_op_abi \w+\[\] = \{\n)(.*?)(^\};\n)}{
		my ($comment, $head, $body, $tail) = ($1, $2, $3, $4);
		$tables++;
		$comment = '' if $comment =~ /\bABI/;
		"$comment$head" . last_row($f, $body) . $tail
	}gmse;
	open(my $out, '>', $f) or die "$f: $!\n";
	print $out $c;
	close($out) or die "$f: $!\n";
}
die "in-tree-abi.pl: no ABI table in @ARGV\n" unless $tables;

# The last brace group of an initializer's body, one tab in, as its row.
sub last_row {
	my ($f, $body) = @_;
	my ($depth, $start, $last) = (0, undef, undef);
	for my $i (0 .. length($body) - 1) {
		my $ch = substr($body, $i, 1);
		if ($ch eq '{') {
			$start = $i if $depth++ == 0;
		} elsif ($ch eq '}') {
			die "$f: unbalanced ABI table\n" if --$depth < 0;
			$last = substr($body, $start, $i - $start + 1) if $depth == 0;
		}
	}
	die "$f: an ABI table with no row\n" unless defined $last;
	return "\t$last,\n";
}
