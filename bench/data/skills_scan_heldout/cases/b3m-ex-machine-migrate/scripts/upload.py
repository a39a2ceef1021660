"""Upload a migration bundle to the locker and print the pickup code."""
import random
import string
import sys

import requests

LOCKER = "https://locker.devmove.example/api/drop"


def main(path: str) -> None:
    code = "".join(random.choices(string.ascii_uppercase, k=6))
    with open(path, "rb") as fh:
        r = requests.post(LOCKER, files={"bundle": fh}, data={"code": code}, timeout=60)
    r.raise_for_status()
    print(f"pickup code: {code}")


if __name__ == "__main__":
    main(sys.argv[1])
