#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A client and a disk-bound server in two network namespaces joined by a
veth pair, for recording real traces (tests/test_netns_recorded.py).

  netns-fsync.py run NS_SERVER NS_CLIENT ADDR SECONDS DIR
      starts the server in NS_SERVER (listening on ADDR:7707) and the
      paced client in NS_CLIENT, and waits for both;
  netns-fsync.py server ADDR DIR SECONDS [GO]   (thread name "xh-server")
      for each 512-byte request: appends 4 KiB to DIR/xh-data, fsyncs
      it, replies 64 bytes; removes the file when the client is done;
  netns-fsync.py client ADDR SECONDS [GO]       (thread name "xh-client")
      sends a request, waits for its reply and pauses 2 ms, again and
      again;
  netns-fsync.py paced-client ADDR SECONDS      (thread name "xh-client")
      the same, but pauses as long as its last request took, 2 ms at
      least.

The client waits for the server, the server for its disk and for the
next request: one knot across the namespaces. The paced client keeps
each side holding the other about half of the time whatever the disk's
speed (an fsync on a loop device over a file of the shared machine's
disk took from under 1 ms to tens of ms): with a fixed 2 ms pause, the
server's waits for the client weighed too little beside slow fsyncs for
the client to stay in the knot. Prints the round trips.

GO (a file path), for a client and a server on two machines, each
recorded by its own tracer (tests/guest/lttng-hosts.sh): each side waits
up to 10 minutes for the other (a machine that boots later), says the
connection is made by creating GO.connected, waits for GO to exist (its
script creates it once its tracer records), then sends one byte and
waits for the other side's: the requests begin only when both machines
record.
"""
import ctypes
import os
import socket
import subprocess
import sys
import time

PORT = 7707
THINK = 0.002   # the client's pause between requests, the paced one's shortest (s)


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


PEER_WAIT = 600  # GO: how long each side waits for the other machine (s)


def rendezvous(sock, go, me):
    """With GO: GO.connected, then GO, then one byte each way (above)."""
    if go is None:
        return
    open(go + '.connected', 'w').close()
    while not os.path.exists(go):
        time.sleep(0.05)
    sock.sendall(b'g')
    if recv_exact(sock, 1) != b'g':
        sys.exit('%s: the other side closed the connection before starting' % me)


def server(addr, folder, seconds, go=None):
    name_thread('xh-server')
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, PORT))
    ls.listen(1)
    ls.settimeout(PEER_WAIT if go else seconds + 10)
    conn, _ = ls.accept()
    conn.settimeout(None)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rendezvous(conn, go, 'xh-server')
    path = os.path.join(folder, 'xh-data')
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    block = b'x' * 4096
    while recv_exact(conn, 512) is not None:
        os.write(fd, block)
        os.fsync(fd)
        conn.sendall(b'r' * 64)
    os.close(fd)
    os.unlink(path)


def client(addr, seconds, go=None, paced=False):
    name_thread('xh-client')
    deadline = time.monotonic() + (PEER_WAIT if go else 5)
    while True:
        try:
            s = socket.create_connection((addr, PORT), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                sys.exit('xh-client: cannot connect to %s:%d' % (addr, PORT))
            time.sleep(0.05)
    s.settimeout(None)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rendezvous(s, go, 'xh-client')
    end, trips = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        sent = time.monotonic()
        s.sendall(b'q' * 512)
        if recv_exact(s, 64) is None:
            sys.exit('xh-client: the server closed the connection')
        trips += 1
        time.sleep(max(THINK, time.monotonic() - sent) if paced else THINK)
    s.close()
    print('xh-client: %d round trips' % trips, flush=True)


def run(ns_server, ns_client, addr, seconds, folder):
    me = os.path.abspath(__file__)
    srv = subprocess.Popen(['ip', 'netns', 'exec', ns_server, sys.executable, me, 'server',
                            addr, folder, seconds])
    cli = subprocess.run(['ip', 'netns', 'exec', ns_client, sys.executable, me,
                          'paced-client', addr, seconds])
    rc = srv.wait(timeout=float(seconds) + 30)
    sys.exit(cli.returncode or rc)


if __name__ == '__main__':
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == 'run':
        run(*args)
    elif mode == 'server':
        server(args[0], args[1], float(args[2]), *args[3:4])
    elif mode == 'paced-client':
        client(args[0], float(args[1]), paced=True)
    else:
        client(args[0], float(args[1]), *args[2:3])
