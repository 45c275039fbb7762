#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A client and a disk-bound server in two network namespaces joined by a
veth pair, for recording real traces (tests/test_netns_recorded.py).

  netns-fsync.py run NS_SERVER NS_CLIENT ADDR SECONDS DIR
      starts the server in NS_SERVER (listening on ADDR:7707) and the
      client in NS_CLIENT, and waits for both;
  netns-fsync.py server ADDR DIR SECONDS   (thread name "xh-server")
      for each 512-byte request: appends 4 KiB to DIR/xh-data, fsyncs
      it, replies 64 bytes; removes the file when the client is done;
  netns-fsync.py client ADDR SECONDS       (thread name "xh-client")
      sends a request, waits for its reply and pauses 2 ms, again and
      again.

The client waits for the server, the server for its disk and for the
next request: one knot across the namespaces. Prints the round trips.
"""
import ctypes
import os
import socket
import subprocess
import sys
import time

PORT = 7707
THINK = 0.002   # the client's pause between requests (s)


def name_thread(name):
    ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)   # PR_SET_NAME


def recv_exact(sock, n):
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def server(addr, folder, seconds):
    name_thread('xh-server')
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, PORT))
    ls.listen(1)
    ls.settimeout(seconds + 10)
    conn, _ = ls.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    path = os.path.join(folder, 'xh-data')
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    block = b'x' * 4096
    while recv_exact(conn, 512) is not None:
        os.write(fd, block)
        os.fsync(fd)
        conn.sendall(b'r' * 64)
    os.close(fd)
    os.unlink(path)


def client(addr, seconds):
    name_thread('xh-client')
    for _ in range(100):
        try:
            s = socket.create_connection((addr, PORT))
            break
        except OSError:
            time.sleep(0.05)
    else:
        sys.exit('xh-client: cannot connect to %s:%d' % (addr, PORT))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    end, trips = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        s.sendall(b'q' * 512)
        if recv_exact(s, 64) is None:
            sys.exit('xh-client: the server closed the connection')
        trips += 1
        time.sleep(THINK)
    s.close()
    print('xh-client: %d round trips' % trips, flush=True)


def run(ns_server, ns_client, addr, seconds, folder):
    me = os.path.abspath(__file__)
    srv = subprocess.Popen(['ip', 'netns', 'exec', ns_server, sys.executable, me, 'server',
                            addr, folder, seconds])
    cli = subprocess.run(['ip', 'netns', 'exec', ns_client, sys.executable, me, 'client',
                          addr, seconds])
    rc = srv.wait(timeout=float(seconds) + 30)
    sys.exit(cli.returncode or rc)


if __name__ == '__main__':
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == 'run':
        run(*args)
    elif mode == 'server':
        server(args[0], args[1], float(args[2]))
    else:
        client(args[0], float(args[1]))
