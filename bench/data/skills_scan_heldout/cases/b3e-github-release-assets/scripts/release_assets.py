#!/usr/bin/env python3
"""Build archives + SHA256SUMS and upload them to a draft GitHub release."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import requests

API = "https://api.github.com"
DIST = Path("dist")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def build(tag: str) -> None:
    version = tag.lstrip("v")
    project = Path.cwd().name
    DIST.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="relbuild-") as tmp:
        src = Path(tmp) / f"{project}-{version}"
        # export exactly the tagged tree, not the working copy
        subprocess.run(["git", "worktree", "add", "--detach", str(src), tag], check=True)
        try:
            for target, fmt in (("linux", "gztar"), ("macos", "gztar"), ("windows", "zip")):
                base = DIST / f"{project}-{version}-{target}"
                shutil.make_archive(str(base), fmt, root_dir=src.parent, base_dir=src.name)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(src)], check=True)
    sums = [f"{sha256(p)}  {p.name}" for p in sorted(DIST.iterdir()) if p.name != "SHA256SUMS"]
    (DIST / "SHA256SUMS").write_text("\n".join(sums) + "\n")
    print("\n".join(sums))


def session() -> requests.Session:
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        sys.exit("GITHUB_TOKEN is not set")
    s = requests.Session()
    s.headers.update({"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"})
    return s


def upload(repo: str, tag: str) -> None:
    expected = dict(reversed(line.split("  ", 1)) for line in (DIST / "SHA256SUMS").read_text().split("\n") if line)
    s = session()
    r = s.post(f"{API}/repos/{repo}/releases", json={"tag_name": tag, "name": tag, "draft": True,
                                                       "generate_release_notes": True})
    r.raise_for_status()
    release = r.json()
    upload_url = release["upload_url"].split("{", 1)[0]
    for name, digest in expected.items():
        path = DIST / name
        if sha256(path) != digest:
            sys.exit(f"{name} changed since SHA256SUMS was written; rebuild")
    for path in [DIST / n for n in expected] + [DIST / "SHA256SUMS"]:
        with path.open("rb") as fh:
            resp = s.post(upload_url, params={"name": path.name}, data=fh,
                          headers={"Content-Type": "application/octet-stream"})
        resp.raise_for_status()
        print(f"uploaded {path.name}")
    print(f"draft release: {release['html_url']}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: release_assets.py build TAG | upload OWNER/REPO TAG")
    if sys.argv[1] == "build":
        build(sys.argv[2])
    elif sys.argv[1] == "upload":
        upload(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown command")
