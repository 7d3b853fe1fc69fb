#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# rst.sh HEADER NAME [PATH]: Documentation/userspace-api/NAME.rst, made
# from the uapi header alone (PATH: where the tree has it, by default
# include/uapi/linux/NAME.h) so that it cannot say other than the header: its
# opening comment, its other comments (the rules, discovery) as written,
# then per ioctl its struct (the header's kernel-doc, pulled in by
# Sphinx), its flags and its published sizes.
set -euo pipefail
hdr=${1:?usage: rst.sh HEADER NAME}
name=${2:?usage: rst.sh HEADER NAME [PATH]}
path=${3:-include/uapi/linux/$name.h}

perl -e '
my ($hdr, $name, $path) = @ARGV;
my $upper = uc $name;
open(my $fh, "<", $hdr) or die "$hdr: $!\n";
my @lines = <$fh>;
my (@comments, $cur, $kdoc, @ioctls, %flags, %sizes, %fcomment);
for (@lines) {
	if (!defined $cur && m{^/\*\*?\s*$}) {
		$kdoc = m{^/\*\*}; $cur = [];
		next;
	}
	if (defined $cur) {
		if (m{^\s*\*/}) {
			push @comments, $cur unless $kdoc;
			undef $cur;
		} else {
			my $t = $_; $t =~ s/^ \* ?//; $t =~ s/^ \*$//; push @$cur, $t;
		}
		next;
	}
	if (/^#define (${upper}_IOC_(\w+))\s+_IO/) { push @ioctls, [$1, $2]; next; }
	if (/^#define (${upper}_(\w+?)_SIZE_VER(\d+))\s+(\d+)\s*(?:\/\*\s*(.*?)\s*\*\/)?/) {
		push @{$sizes{$2}}, [$3, $4, $5 // ""]; next;
	}
	if (/^#define (${upper}_(\w+?)_(\w+))\s+(0x[0-9a-fA-F]+(?:ULL)?)\s*(?:\/\*\s*(.*?)\s*\*\/)?/) {
		next if $3 eq "FLAGS";
		push @{$flags{$2}}, [$1, $4, $5 // ""]; next;
	}
}
my $title = $name;
print ".. SPDX-License-Identifier: GPL-2.0\n\n";
print "=" x length($title), "\n$title\n", "=" x length($title), "\n\n";
my $first = shift @comments;
print "The comment that opens ``$path``::\n\n";
print map { $_ eq "\n" ? "\n" : "    $_" } @$first;
print "\n";
if (@comments) {
	print "Rules\n=====\n\n";
	print "As the header states them, in the order the driver applies them::\n\n";
	for my $c (@comments) {
		print map { $_ eq "\n" ? "\n" : "    $_" } @$c;
		print "\n";
	}
}
print "Operations\n==========\n\n";
for my $io (@ioctls) {
	my ($macro, $op) = @$io;
	my $head = "``$macro``";
	print "$head\n", "-" x length($head), "\n\n";
	my $f = $flags{$op} // [];
	if (@$f) {
		print "Flags:\n\n";
		print "``$_->[0]`` (``$_->[1]``)\n    ", ($_->[2] ne "" ? $_->[2] : "see below"), "\n\n" for @$f;
	} else {
		print "No flag yet: ``flags`` must be 0, or ``${upper}_CHECK_FIELDS``.\n\n";
	}
	my $s = $sizes{$op} // [];
	if (@$s) {
		print "Published sizes of its struct: ",
		      join(", ", map { "VER$_->[0], $_->[1] bytes" . ($_->[2] ne "" ? " ($_->[2])" : "") } @$s),
		      ".\n\n";
	}
	my $struct = "${name}_" . lc($op);
	print ".. kernel-doc:: $path\n   :identifiers: $struct\n\n"
		if grep { /^struct \Q$struct\E \{/ } @lines;
}
# Structs the header documents that no ioctl takes (what a read() of a
# returned fd gives, for one), each with its kernel-doc
my %taken = map { ("${name}_" . lc($_->[1]) => 1) } @ioctls;
my @other;
for (@lines) {
	push @other, [$1, $2] if /^ \* struct (\Q$name\E_\w+) - (.*)$/ && !$taken{$1};
}
if (@other) {
	print "Other structures\n================\n\n";
	for my $o (@other) {
		print "``struct $o->[0]``: $o->[1].\n\n",
		      ".. kernel-doc:: $path\n   :identifiers: $o->[0]\n\n";
	}
}
print "Discovery\n=========\n\n";
print "A program asks the running kernel what an operation supports by calling\n",
      "it with ``flags`` set to ``${upper}_CHECK_FIELDS`` alone: the operation does\n",
      "nothing and writes back the flags it accepts, all ones in every field it\n",
      "understands and the size of its struct, zeroing the rest of the caller\x27s\n",
      "struct.  A flag or field the running kernel does not know is therefore\n",
      "never a guess, and never silently ignored.\n";
' "$hdr" "$name" "$path"
