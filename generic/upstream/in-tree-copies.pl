#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-only
# make upstream: the dispatcher of the series copies its structs with the
# kernel's helpers.  The out-of-tree module keeps its u64-at-a-time
# copies, whose cost it measured; a tree has copy_struct_from_user(), and
# from 6.13 copy_struct_to_user(), and a reviewer expects them.
#
#   in-tree-copies.pl DISPATCH.C     (HAVE_CSTU=1: the tree has
#                                     copy_struct_to_user())
#
# Rewrites the file in place: ffst_args_from_user() goes, its caller calls
# copy_struct_from_user(); ffst_struct_to_user_slow() goes, and
# ffst_struct_to_user() is copy_struct_to_user() (or, before 6.13, what
# it does, open-coded) with the flags word written over the first.  Dies
# if a piece is missing, or one of the fast paths is left.
use strict;
use warnings;

my $f = shift or die "usage: in-tree-copies.pl DISPATCH.C\n";
open(my $in, '<', $f) or die "$f: $!\n";
my $c = do { local $/; <$in> };
close($in);

# A function with the comment block right above it, if any.
sub function_re {
	my ($name) = @_;
	return qr{(?:/\*(?:(?!\*/).)*\*/\n)?static int \Q$name\E\(.*?\n\}\n\n}s;
}

my $copy_to = $ENV{HAVE_CSTU} ? <<'EOF' : <<'EOF';
	if (copy_struct_to_user(dst, usize, src, ksize, NULL))
		return -EFAULT;
EOF
	if (usize > ksize && clear_user(dst + ksize, usize - ksize))
		return -EFAULT;
	if (copy_to_user(dst, src, min(usize, ksize)))
		return -EFAULT;
EOF
# The signature's second line aligned with its open parenthesis, whatever
# the prefix is called.
my $open = 'static int ffst_struct_to_user(';
my $col = length($open);
my $indent = ("\t" x int($col / 8)) . (' ' x ($col % 8));
my $what = $ENV{HAVE_CSTU} ? 'copy_struct_to_user()' :
	'copy_struct_to_user() (6.13), open-coded,';
my $to_user = <<"EOF";
/*
 * $what of \@src (\@ksize bytes) with
 * \@flags as its first word, so that CHECK_FIELDS answers from a template
 * of the other fields.  Every size_ver0 is at least 16: the caller's
 * struct has the flags word.
 */
${open}void __user *dst, size_t usize, u64 flags,
${indent}const void *src, size_t ksize)
{
${copy_to}	return put_user(flags, (u64 __user *)dst);
}

EOF

my $found = 0;
$found++ if $c =~ s{${\ function_re('ffst_args_from_user')}}{};
$found++ if $c =~ s{${\ function_re('ffst_struct_to_user_slow')}}{};
$found++ if $c =~ s{${\ function_re('ffst_struct_to_user')}}{$to_user};
$found++ if $c =~ s{\bffst_args_from_user\(&args, uarg, }
		       {copy_struct_from_user(&args, sizeof(args), uarg,\n\t\t\t\t    };
die "$f: $found of the 4 fast-path pieces found\n" unless $found == 4;
die "$f: a fast path is left\n"
	if $c =~ /ffst_args_from_user|ffst_struct_to_user_slow|unsafe_(?:get|put)_user|HAVE_COPY_STRUCT_TO_USER/;

open(my $out, '>', $f) or die "$f: $!\n";
print $out $c;
close($out) or die "$f: $!\n";
