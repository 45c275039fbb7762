#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: archive a tree with tar, then sync: the archive's pages are
# written back to the disk while sync waits.
D=$1
echo $$ > "$D/driver.pid"
tar -cf "$D/out.tar" -C "$D" tree || exit 1
sync
