#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: MariaDB committing with fsync (innodb_flush_log_at_trx_commit=1)
# under sysbench oltp_write_only. $1: the case's directory (datadir db/
# already initialised by cases.py); FIELD_PORT, FIELD_SECS, FIELD_THREADS;
# FIELD_FLUSH: innodb_flush_log_at_trx_commit (default 1; 0: no fsync per commit);
# FIELD_SB_TEST: the sysbench test (default oltp_write_only; the recording
# cost benchmark runs oltp_read_write).
D=$1
echo $$ > "$D/driver.pid"
mariadbd --no-defaults --datadir="$D/db" --socket="$D/my.sock" --port="$FIELD_PORT" \
    --bind-address=127.0.0.1 --user=root --pid-file="$D/server.pid" \
    --innodb-flush-log-at-trx-commit="${FIELD_FLUSH:-1}" --innodb-buffer-pool-size=64M \
    --skip-log-bin --log-error="$D/err.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server' EXIT
for _ in $(seq 300); do [ -S "$D/my.sock" ] && break; sleep 0.05; done
sb="sysbench ${FIELD_SB_TEST:-oltp_write_only} --db-driver=mysql --mysql-socket=$D/my.sock --mysql-user=root
    --tables=2 --table-size=1000"
mariadb --no-defaults -S "$D/my.sock" -uroot -e 'create database if not exists sbtest' || exit 1
$sb prepare > "$D/prepare.out" || exit 1
echo "begin $(date +%s%N)" > "$D/window"
$sb --threads="$FIELD_THREADS" --time="$FIELD_SECS" run > "$D/load.out" || exit 1
echo "end $(date +%s%N)" >> "$D/window"
