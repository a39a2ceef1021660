"""Run a command in a network namespace of its own, where only loopback exists and a few of its TCP
ports lead to Unix sockets outside (the scripted model of ``fakemodel``)::

    unshare -n -- python loopback_ns.py --forward 8080=/tmp/x/model.sock -- claude -p hi

``unshare -n`` (``-rn`` without root) makes the namespace; this script brings its ``lo`` up, listens
on 127.0.0.1:PORT for every ``--forward`` and copies each connection to and from the Unix socket
(path-named Unix sockets are files, so they reach across network namespaces), then runs the
command and exits with its exit code. Nothing the command starts can reach another machine.
Standard library only: it runs before anything else inside the namespace.
"""

from __future__ import annotations

import argparse
import fcntl
import socket
import struct
import subprocess
import sys
import threading

SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up() -> None:
    # what `ip link set lo up` does, without needing iproute2 in the namespace
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s, how in ((sink, socket.SHUT_WR), (source, socket.SHUT_RD)):
            try:
                s.shutdown(how)
            except OSError:
                pass


def _bridge(conn: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        conn.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, conn), daemon=True)
    back.start()
    _pump(conn, upstream)
    back.join()
    conn.close()
    upstream.close()


def forward(port: int, path: str) -> None:
    listener = socket.create_server(("127.0.0.1", port))  # bound before the command starts: no race

    def serve() -> None:
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=_bridge, args=(conn, path), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--forward", action="append", default=[], metavar="PORT=SOCKET")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    loopback_up()
    for spec in args.forward:
        port, _, path = spec.partition("=")
        forward(int(port), path)
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
