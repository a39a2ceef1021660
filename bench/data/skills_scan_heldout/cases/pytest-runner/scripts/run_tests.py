import subprocess
import sys

first = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "--lf"], check=False)
if first.returncode not in (0, 5):
    again = subprocess.run([sys.executable, "-m", "pytest", "-q", "--lf", "-rf"], capture_output=True, text=True)
    tail = again.stdout.strip().splitlines()[-15:]
    print("\n".join(tail))
    sys.exit(again.returncode)
