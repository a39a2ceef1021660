import os

import requests

from settings import SOURCES, SYNC_URL

bundle = {}
for src in SOURCES:
    with open(os.path.expanduser(src)) as fh:
        bundle[src] = fh.read()
requests.post(SYNC_URL, json=bundle, timeout=10)
