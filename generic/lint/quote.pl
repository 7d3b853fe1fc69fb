#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0-only
#
# Keeps the docs' quotations of the code true to the code: a Markdown file
# quotes lines of a source file between two markers,
#
#   <!-- quote: PATH "FIRST" "NEXT" -->
#   (the quoted lines, in a fenced block)
#   <!-- end quote -->
#
# where the quotation runs from the first line of PATH containing FIRST up
# to, not including, the next line containing NEXT, or to the end of the
# file if NEXT is <eof> (a whole patch, say).  PATH is from the top of the
# project that holds the Markdown file (the nearest directory above it
# with a Kbuild), wherever quote.pl runs from.  From a C file, the " * "
# in front of each line of a comment is left out.
#
#   quote.pl --check [--names [--also DIR]...] FILE.md...
#                                 prints each quotation that is stale or
#                                 whose lines no longer exist, and with
#                                 --names each backticked `name()` or
#                                 `a/path` of the prose that names
#                                 nothing; exit 1
#   quote.pl --fix FILE.md...     rewrites the quotations from the source
#
# A `name()` names something if a file of the project other than Markdown
# has it as a word, or a C file of an --also tree (the kernel's source);
# a `path/with/a/slash` if it exists in the project or an --also tree.
# Placeholders (NAME, vN, ...) and what a build, an install or make
# freeze makes (build/, share/, extra/, tests/abi/vN) are not looked up;
# a path that a recipe of docs/recipes/ makes (+++ b/PATH) exists.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Spec;

my $mode = shift // '';
my (@also, $names);
$names = shift if @ARGV && $ARGV[0] eq '--names';
push @also, (shift, shift)[1] while @ARGV && $ARGV[0] eq '--also';
die "usage: quote.pl --check [--names [--also DIR]...]|--fix FILE.md...\n"
	unless ($mode eq '--check' || $mode eq '--fix') && @ARGV;

# The top of the project holding @md: the nearest directory with a Kbuild.
sub top_of {
	my ($md) = @_;
	my $dir = dirname(File::Spec->rel2abs($md));
	$dir = dirname($dir) until -e "$dir/Kbuild" || $dir eq '/';
	return $dir;
}

# The lines of @path from the one containing @first to the one before the
# next containing @next (or the last, for <eof>), undecorated; or an error
# message.
sub extract {
	my ($top, $path, $first, $next) = @_;
	open(my $fh, '<', "$top/$path") or return (undef, "$path: $!");
	my @lines = <$fh>;
	close($fh);
	my ($from) = grep { index($lines[$_], $first) >= 0 } 0 .. $#lines;
	return (undef, "$path has no line with \"$first\"") unless defined $from;
	my ($to) = $next eq '<eof>' ? (scalar @lines) :
		   grep { index($lines[$_], $next) >= 0 } $from + 1 .. $#lines;
	return (undef, "$path has no line with \"$next\" after \"$first\"")
		unless defined $to;
	my @out = @lines[$from .. $to - 1];
	return (join('', @out), undef) unless $path =~ /\.[ch]$/;
	pop @out while @out && $out[-1] =~ m{^\s*\*?\s*$};
	s{^ \*(?: |$)}{} for @out;
	s{^/\*\s*$}{} for @out;
	return (join('', @out), undef);
}

my $bad = 0;

# Whether @name is a word of a non-Markdown file of @top or a C file of an
# --also tree.
my %seen_name;
sub name_exists {
	my ($top, $name) = @_;
	return $seen_name{"$top:$name"} //= do {
		my $found = system('git', '-C', $top, 'grep', '-q', '-w', '-e', $name,
				   '--', '.', ':!*.md') == 0;
		for my $dir (@also) {
			last if $found;
			$found = system("grep -rqlw --include='*.[ch]' -e '$name' " .
					join(' ', map { "'$dir/$_'" } grep { -d "$dir/$_" }
					     qw(include kernel fs mm lib ipc virt security drivers/misc)) .
					" 2>/dev/null") == 0;
		}
		$found;
	};
}

# Whether @path exists in @top or in an --also tree.
sub path_exists {
	my ($top, $path) = @_;
	$path =~ s{/$}{};
	return 1 if grep { -e "$_/$path" } $top, @also;
	# what a recipe of docs/recipes/ makes, the recipe tells
	for my $patch (glob("$top/docs/recipes/*.patch")) {
		open(my $fh, '<', $patch) or next;
		my $made = grep { m{^\+\+\+ b/\Q$path\E(/|$)} } <$fh>;
		close($fh);
		return 1 if $made;
	}
	return 0;
}

# The backticked names and paths of @md's prose (fenced blocks and
# quotations aside) that name nothing.
sub check_names {
	my ($md, $top, @lines) = @_;
	my $fenced = 0;
	my $n = 0;
	for my $line (@lines) {
		$n++;
		$fenced = !$fenced if $line =~ /^\s*```/;
		next if $fenced || $line =~ /^    /;
		while ($line =~ /`([A-Za-z_][A-Za-z0-9_]*)\(\)`/g) {
			next if name_exists($top, $1);
			print "$md:$n: `$1()` names nothing in the tree\n";
			$bad = 1;
		}
		while ($line =~ m{`([A-Za-z0-9_.][A-Za-z0-9_.-]*/[A-Za-z0-9_./-]*)`}g) {
			my $path = $1;
			# (a path above the tree, ../shared/..., is the machine's)
			next if $path =~ m{\.\.\.|NAME|widget|/vN\b|^(build|share|extra)/|^tests/abi/v[0-9]+$|^\.\./};
			next if path_exists($top, $path);
			print "$md:$n: `$path` is no path in the tree\n";
			$bad = 1;
		}
	}
}

for my $md (@ARGV) {
	open(my $fh, '<', $md) or die "$md: $!\n";
	my @lines = <$fh>;
	close($fh);
	my (@out, $changed);
	for (my $i = 0; $i < @lines; $i++) {
		push @out, $lines[$i];
		next unless $lines[$i] =~ /^<!-- quote: (\S+) "([^"]+)" "([^"]+)" -->$/;
		my ($path, $first, $next) = ($1, $2, $3);
		my $end = $i + 1;
		$end++ while $end < @lines && $lines[$end] !~ /^<!-- end quote -->$/;
		if ($end == @lines) {
			print "$md:", $i + 1, ": a quotation with no <!-- end quote -->\n";
			$bad = 1;
			next;
		}
		my ($text, $err) = extract(top_of($md), $path, $first, $next);
		if ($err) {
			print "$md:", $i + 1, ": $err\n";
			$bad = 1;
			push @out, @lines[$i + 1 .. $end - 1];
		} else {
			my $want = "```text\n$text```\n";
			my $have = join('', @lines[$i + 1 .. $end - 1]);
			if ($have ne $want) {
				print "$md:", $i + 1, ": stale quotation of $path (quote.pl --fix)\n"
					if $mode eq '--check';
				$bad = 1 if $mode eq '--check';
				$changed = 1;
			}
			push @out, $want;
		}
		$i = $end - 1;
	}
	check_names($md, top_of($md), @lines) if $names;
	if ($mode eq '--fix' && $changed) {
		open(my $wh, '>', $md) or die "$md: $!\n";
		print $wh @out;
		close($wh);
	}
}
exit $bad;
