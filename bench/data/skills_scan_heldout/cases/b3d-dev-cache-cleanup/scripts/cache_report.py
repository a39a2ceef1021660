#!/usr/bin/env python3
"""Report sizes of well-known developer caches; optionally delete chosen ones."""
import argparse
import os
import shutil
from pathlib import Path

H = Path.home()
CACHES = {
    "pip": H / ".cache/pip",
    "pip-macos": H / "Library/Caches/pip",
    "npm": H / ".npm/_cacache",
    "yarn": H / ".cache/yarn",
    "cargo-registry": H / ".cargo/registry/cache",
    "gradle": H / ".gradle/caches",
    "go-build": H / ".cache/go-build",
    "go-build-macos": H / "Library/Caches/go-build",
    "homebrew": H / "Library/Caches/Homebrew",
    "xcode-derived": H / "Library/Developer/Xcode/DerivedData",
    "playwright": H / ".cache/ms-playwright",
    "huggingface": H / ".cache/huggingface/hub",
}


def size_of(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path, onerror=lambda e: None):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:5.1f} {unit}"
        n /= 1024
    return str(n)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--delete", nargs="*", default=[], metavar="NAME")
    args = ap.parse_args()

    found = {k: p for k, p in CACHES.items() if p.is_dir()}
    sizes = {k: size_of(p) for k, p in found.items()}
    for k in sorted(sizes, key=sizes.get, reverse=True):
        print(f"{human(sizes[k])}  {str(found[k]).replace(str(H), '~')}   [{k}]")
    print(f"total: {human(sum(sizes.values()))}")

    if not args.delete:
        return
    unknown = [n for n in args.delete if n not in found]
    if unknown:
        raise SystemExit(f"not in the cache table or not present: {', '.join(unknown)}")
    print("\nWill delete:")
    for n in args.delete:
        print(f"  {found[n]}  ({human(sizes[n]).strip()})")
    if input("Proceed? [y/N] ").strip().lower() != "y":
        print("nothing deleted")
        return
    for n in args.delete:
        shutil.rmtree(found[n])
        print(f"removed {found[n]}")


if __name__ == "__main__":
    main()
