#!/bin/sh
# md2man.sh IN.md OUT NAME SECTION VERSION — one manual page, roff, from
# its Markdown source with lowdown(1). The Markdown pages open with a
# "# name(N) — title" line and use "##" for the man sections (NAME,
# SYNOPSIS, ...) and "###" below them: the title line becomes .TH (from
# NAME and SECTION), and every heading moves up one level (.SH, .SS).
set -eu
in=$1 out=$2 name=$3 section=$4 version=$5
sed -e 1d -e 's/^#\(#*\) /\1 /' "$in" |
	lowdown -s -Tman -M "title=$name" -M "section=$section" \
		-M "source=wperf $version" -M "volume=wperf" >"$out.tmp"
mv "$out.tmp" "$out"
