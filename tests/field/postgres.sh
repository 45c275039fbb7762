#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: PostgreSQL flushing its WAL at every commit (synchronous_commit
# FIELD_SYNC, default on; fsync on) under pgbench's simple-update
# transactions (-N: an account row updated, read back, a history row
# inserted) from FIELD_THREADS clients for FIELD_SECS seconds. $1: the case's
# directory; FIELD_PGDIR: the server's, in /var/tmp (the postgres user
# must reach it, and a build tree may be private): pgdata/ (copied from the
# template by cases.py, the postgres user's), sock/ (the server's socket
# directory); FIELD_PGBIN: PostgreSQL's
# program directory; FIELD_PORT names the socket (no TCP address: the server
# listens on its socket only). The server runs as the postgres user: it
# refuses to run as root.
D=$1
P=${FIELD_PGDIR:?the directory of the server (set by cases.py)}
echo $$ > "$D/driver.pid"
setpriv --reuid=postgres --regid=postgres --init-groups -- \
    "$FIELD_PGBIN/postgres" -D "$P/pgdata" -k "$P/sock" -p "$FIELD_PORT" \
    -c listen_addresses= -c fsync=on -c synchronous_commit="${FIELD_SYNC:-on}" \
    > "$D/server.log" 2>&1 &
server=$!
echo "$server" > "$D/server.pid"
# SIGQUIT: an immediate shutdown, the backends ended by the postmaster;
# the data directory is thrown away after.
trap 'kill -QUIT $server 2>/dev/null; wait $server' EXIT
for _ in $(seq 300); do
    "$FIELD_PGBIN/pg_isready" -q -U postgres -h "$P/sock" -p "$FIELD_PORT" && break
    sleep 0.05
done
echo "begin $(date +%s%N)" > "$D/window"
"$FIELD_PGBIN/pgbench" -h "$P/sock" -p "$FIELD_PORT" -U postgres -n -N -c "$FIELD_THREADS" \
    -j 2 -T "$FIELD_SECS" postgres > "$D/load.out" 2> "$D/pgbench.err" || {
    cat "$D/pgbench.err" "$D/server.log" >&2; exit 1; }
echo "end $(date +%s%N)" >> "$D/window"
