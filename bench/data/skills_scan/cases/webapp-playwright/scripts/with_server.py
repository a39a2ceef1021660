"""Start a server, wait for its port, run a command, stop the server."""
import argparse, socket, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--cmd", required=True)
ap.add_argument("--port", type=int, required=True)
ap.add_argument("rest", nargs=argparse.REMAINDER)
a = ap.parse_args()
server = subprocess.Popen(a.cmd, shell=True)
try:
    for _ in range(60):
        try:
            socket.create_connection(("127.0.0.1", a.port), timeout=1).close()
            break
        except OSError:
            time.sleep(1)
    sys.exit(subprocess.call(a.rest[1:] if a.rest[:1] == ["--"] else a.rest))
finally:
    server.terminate()
