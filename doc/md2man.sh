#!/bin/sh
# SPDX-License-Identifier: MIT
# md2man.sh IN.md OUT NAME SECTION VERSION — one manual page, roff, from
# its Markdown source with lowdown(1). The Markdown pages open with a
# "# name(N) — title" line and use "##" for the man sections (NAME,
# SYNOPSIS, ...) and "###" below them: the title line becomes .TH (from
# NAME and SECTION), and every heading moves up one level (.SH, .SS).
#
# Two touches to lowdown's roff, so that `man --warnings -l` is silent at
# 80 columns: troff justifies text by default, and a narrow table cell
# (tbl's T{ T} blocks) or a line holding a long code span cannot be
# justified ("cannot adjust line"): `.ad l` after .TH sets text ragged
# right, as most manual pages are. A code span without blanks longer than
# a cell or a line (event lists "a,b,c", paths, KEY=VALUE, names_with_
# underscores) cannot be broken at all ("can't break line"): `\:` after
# each `,` `/` `_` `=` followed by more of the word lets troff break there
# without a hyphen and prints nothing when it does not. Only text lines
# (not requests, which begin with `.` or `'`); never before `|`, tbl's
# column separator in lowdown's tables, nor before an escape. Tables of 4
# or more columns: tbl gives each text-block column a share of the whole
# line, without man's 7n indent, and the table overflows 80 columns
# ("table wider than line width"): their columns get a width that fits
# (71n of text, 3n of rule and padding per column).
set -eu
in=$1 out=$2 name=$3 section=$4 version=$5
sed -e 1d -e 's/^#\(#*\) /\1 /' "$in" |
	lowdown -s -Tman -M "title=$name" -M "section=$section" \
		-M "source=wperf $version" -M "volume=wperf" >"$out.lowdown"
sed -e '/^\.TH /a\
.ad l' -e '/^[.'"'"']/!s/\([,/_=]\)\([^ ,/_=|\\]\)/\1\\:\2/g' "$out.lowdown" |
	awk '
	/^\.TS$/ { table = 1 }
	table && /^[lcr][a-z]*( [lcr][a-z]*)*\.$/ {   # the last format line
		n = split(substr($0, 1, length($0) - 1), col, " ")
		if (n >= 4) {
			w = int((71 - 3 * n - 1) / n)
			line = ""
			for (i = 1; i <= n; i++)
				line = line (i > 1 ? " " : "") col[i] "w(" w "n)"
			$0 = line "."
		}
		table = 0
	}
	{ print }' >"$out.tmp"
rm -f "$out.lowdown"
mv "$out.tmp" "$out"
