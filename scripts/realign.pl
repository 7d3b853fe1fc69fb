#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/realign.pl FILE...: re-indents, in place, each continuation line
# of C source to one column past the parenthesis it continues, in tabs then
# spaces, as checkpatch --strict wants.  scripts/new-interface runs it after
# renaming, since a longer or shorter prefix moves every open parenthesis.
# On a file that already obeys the rule it changes nothing.
use strict;
use warnings;

sub col_after {		# the visual column after $text, tabs at 8
	my ($text) = @_;
	my $col = 0;

	for my $c (split //, $text) {
		$col = $c eq "\t" ? ($col | 7) + 1 : $col + 1;
	}
	return $col;
}

for my $file (@ARGV) {
	open(my $in, '<', $file) or die "realign.pl: $file: $!\n";
	my @lines = <$in>;
	close($in);

	my @open;		# columns of the parentheses still open
	my $comment = 0;	# inside /* ... */
	for my $line (@lines) {
		if (@open && !$comment && $line =~ /^[ \t]+(\S.*)$/s) {
			my $col = $open[-1] + 1;
			$line = ("\t" x int($col / 8)) . (' ' x ($col % 8)) . $1;
		}
		next if $line =~ /^\s*#/ && !@open;	# preprocessor lines
		my $text = '';
		my @c = split //, $line;
		for (my $i = 0; $i < @c; $i++) {
			my $ch = $c[$i];
			if ($comment) {
				if ($ch eq '*' && ($c[$i + 1] // '') eq '/') {
					$comment = 0;
					$text .= '*';
					$i++;
					$ch = '/';
				}
			} elsif ($ch eq '/' && ($c[$i + 1] // '') eq '*') {
				$comment = 1;
			} elsif ($ch eq '/' && ($c[$i + 1] // '') eq '/') {
				last;
			} elsif ($ch eq '"' || $ch eq "'") {
				my $q = $ch;
				$text .= $ch;
				for ($i++; $i < @c; $i++) {
					$text .= $c[$i];
					last if $c[$i] eq $q;
					$text .= $c[++$i] if $c[$i] eq '\\';
				}
				next;
			} elsif ($ch eq '(') {
				push @open, col_after($text);
			} elsif ($ch eq ')') {
				pop @open;
			}
			$text .= $ch;
		}
	}

	open(my $out, '>', $file) or die "realign.pl: $file: $!\n";
	print $out @lines;
	close($out);
}
