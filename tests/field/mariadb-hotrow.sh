#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: MariaDB with every transaction updating the same few rows
# (sysbench oltp_write_only on a table of FIELD_ROWS rows, default 1:
# InnoDB's row lock serialises the clients); commits are not fsynced
# (innodb_flush_log_at_trx_commit=0) so that the lock, not the disk, paces it.
D=$1
echo $$ > "$D/driver.pid"
mariadbd --no-defaults --datadir="$D/db" --socket="$D/my.sock" --port="$FIELD_PORT" \
    --bind-address=127.0.0.1 --user=root --pid-file="$D/server.pid" \
    --innodb-flush-log-at-trx-commit=0 --innodb-buffer-pool-size=64M \
    --skip-log-bin --log-error="$D/err.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server' EXIT
for _ in $(seq 300); do [ -S "$D/my.sock" ] && break; sleep 0.05; done
sb="sysbench oltp_write_only --db-driver=mysql --mysql-socket=$D/my.sock --mysql-user=root
    --tables=1 --table-size=${FIELD_ROWS:-4}"
mariadb --no-defaults -S "$D/my.sock" -uroot -e 'create database if not exists sbtest' || exit 1
$sb prepare > "$D/prepare.out" || exit 1
echo "begin $(date +%s%N)" > "$D/window"
$sb --threads="$FIELD_THREADS" --time="$FIELD_SECS" run > "$D/load.out" || exit 1
echo "end $(date +%s%N)" >> "$D/window"
