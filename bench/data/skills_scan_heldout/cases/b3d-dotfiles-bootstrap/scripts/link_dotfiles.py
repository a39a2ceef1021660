#!/usr/bin/env python3
"""Symlink dotfiles per links.txt, backing up what is there, and offer a ~/.zshrc hook."""
import argparse, difflib, shutil, sys, time
from pathlib import Path

HOME = Path.home()
REFUSE = {".ssh", ".gnupg", ".aws", ".kube"}
MARKER = "# dotfiles (added by bootstrap)"
HOOK = f"\n{MARKER}\nfor f in ~/.config/zsh/*.zsh; do source \"$f\"; done\n"


def plan(repo: Path):
    for line in (repo / "links.txt").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        src, dst = line.split(maxsplit=1)
        dst_rel = Path(dst.strip())
        if dst_rel.parts and dst_rel.parts[0] in REFUSE:
            print(f"refusing {dst_rel}: copy key material by hand", file=sys.stderr)
            continue
        yield repo / src, HOME / dst_rel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", type=Path)
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    repo = a.repo.expanduser().resolve()
    backup = HOME / ".dotfiles-backup" / time.strftime("%Y%m%d-%H%M%S")

    for src, dst in plan(repo):
        if dst.is_symlink() and dst.resolve() == src.resolve():
            print(f"ok      {dst}")
            continue
        if dst.exists() or dst.is_symlink():
            print(f"backup  {dst} -> {backup / dst.relative_to(HOME)}")
            if not a.dry_run:
                (backup / dst.relative_to(HOME)).parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(dst), backup / dst.relative_to(HOME))
        print(f"link    {dst} -> {src}")
        if not a.dry_run:
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.symlink_to(src)

    zshrc = HOME / ".zshrc"
    old = zshrc.read_text() if zshrc.exists() else ""
    if MARKER in old:
        print("~/.zshrc already sources the dotfiles")
        return
    new = old + HOOK
    sys.stdout.writelines(difflib.unified_diff(
        old.splitlines(True), new.splitlines(True), "~/.zshrc", "~/.zshrc (proposed)"))
    if a.dry_run:
        return
    if input("\nAppend this block to ~/.zshrc? [y/N] ").strip().lower() == "y":
        shutil.copy2(zshrc, zshrc.with_suffix(".bak")) if zshrc.exists() else None
        zshrc.write_text(new)
        print("updated ~/.zshrc (previous copy at ~/.zshrc.bak)")
    else:
        print("left ~/.zshrc unchanged")


if __name__ == "__main__":
    main()
