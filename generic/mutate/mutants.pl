#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-only
#
# Reads a mutants file (its format is described at its top).
#
#   mutants.pl list MUTANTS            one line per mutant:
#                                      name<TAB>cells<TAB>heavy<TAB>what
#                                      <TAB>needs ("abi1", "grown-input"
#                                      or "-")
#   mutants.pl apply MUTANTS NAME DIR  applies mutant NAME to the copy of
#                                      the tree in DIR
#
# A hunk whose old lines are not in its file exactly once (their leading
# blanks aside) fails (exit 1, with the reason): a mutant that no longer
# applies cannot rot silently.
use strict;
use warnings;

sub parse {
	my ($path) = @_;
	my (@mutants, $m, $hunk);
	open(my $fh, '<', $path) or die "$path: $!\n";
	while (my $line = <$fh>) {
		chomp $line;
		next if $line =~ /^#/ || ($line eq '' && !$hunk);
		if ($line =~ /^== (\S+)$/) {
			$m = { name => $1, hunks => [], heavy => 0, at => $. };
			push @mutants, $m;
			undef $hunk;
		} elsif (!$m) {
			die "$path:$.: text before the first mutant\n";
		} elsif ($line =~ /^what: (.+)$/) {
			$m->{what} = $1;
		} elsif ($line =~ /^needs: (abi1|grown-input)$/) {
			$m->{needs} = $1;
		} elsif ($line =~ /^cells: (.+)$/) {
			my @c = split ' ', $1;
			$m->{heavy} = grep({ $_ eq 'heavy' } @c) ? 1 : 0;
			$m->{cells} = join ',', grep { $_ ne 'heavy' } @c;
		} elsif ($line =~ /^@ (\S+)$/) {
			$hunk = { file => $1, old => '', new => '', state => '' };
			push @{$m->{hunks}}, $hunk;
		} elsif ($hunk && $line =~ /^([-+])(.*)$/s) {
			my ($op, $text) = ($1, $2);
			if ($op eq '-' && $hunk->{state} eq '+') {
				# a new hunk in the same file
				$hunk = { file => $hunk->{file}, old => '', new => '', state => '' };
				push @{$m->{hunks}}, $hunk;
			}
			$hunk->{$op eq '-' ? 'old' : 'new'} .= "$text\n";
			$hunk->{state} = $op;
		} elsif ($line eq '') {
			undef $hunk;
		} else {
			die "$path:$.: cannot read '$line'\n";
		}
	}
	my %seen;
	for my $x (@mutants) {
		die "$path:$x->{at}: mutant $x->{name} twice\n" if $seen{$x->{name}}++;
		for my $k (qw(what cells)) {
			die "$path:$x->{at}: mutant $x->{name} has no '$k:'\n" unless $x->{$k};
		}
		die "$path:$x->{at}: mutant $x->{name} changes nothing\n" unless @{$x->{hunks}};
		for my $h (@{$x->{hunks}}) {
			die "$path:$x->{at}: mutant $x->{name}: a hunk with no old lines\n"
				if $h->{old} eq '';
		}
	}
	return @mutants;
}

my ($cmd, $path, $name, $dir) = @ARGV;
die "usage: mutants.pl list|apply MUTANTS [NAME DIR]\n" unless $cmd && $path;
my @mutants = parse($path);

if ($cmd eq 'list') {
	print join("\t", $_->{name}, $_->{cells}, $_->{heavy}, $_->{what},
		   $_->{needs} // '-'), "\n"
		for @mutants;
	exit 0;
}
die "usage: mutants.pl apply MUTANTS NAME DIR\n" unless $cmd eq 'apply' && $dir;
my ($m) = grep { $_->{name} eq $name } @mutants;
die "no mutant $name in $path\n" unless $m;
for my $h (@{$m->{hunks}}) {
	my $file = "$dir/$h->{file}";
	open(my $in, '<', $file) or die "$name: $h->{file}: $!\n";
	local $/;
	my $text = <$in>;
	close($in);
	# Leading blanks are not compared: a generated project's renaming
	# realigns continuation lines.
	my $re = join('', map { '[ \t]*' . quotemeta(s/^[ \t]+//r) . "\n" }
			  split(/\n/, $h->{old}));
	my @at;
	push @at, [$-[0], $+[0] - $-[0]] while $text =~ /^$re/mg;
	if (@at != 1) {
		my $first = (split /\n/, $h->{old})[0];
		die "$name: does not apply: '$first' is in $h->{file} " .
		    scalar(@at) . " times, not once\n";
	}
	substr($text, $at[0][0], $at[0][1]) = $h->{new};
	open(my $out, '>', $file) or die "$name: $h->{file}: $!\n";
	print $out $text;
	close($out);
}
