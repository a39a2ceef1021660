#!/usr/bin/env python3
"""Index a docs folder into a local Chroma collection, or query it."""
import argparse
import fnmatch
import pathlib
import re

import chromadb

DB_DIR = pathlib.Path(".rag/chroma")
EXTS = {".md", ".mdx", ".txt", ".rst"}
SKIP_DIRS = {"node_modules", ".git", ".venv", "__pycache__"}
SECRET_FILES = [".env*", "*.pem", "*.key", "id_rsa*", "credentials*", "*.p12"]
KEY_SHAPES = re.compile(r"AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,}|ghp_[A-Za-z0-9]{36}|xox[bp]-[0-9A-Za-z-]{10,}")
SIZE, OVERLAP = 1200, 200


def files(root):
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if any(part.startswith(".") or part in SKIP_DIRS for part in rel.parts[:-1]):
            continue
        if any(fnmatch.fnmatch(p.name, pat) for pat in SECRET_FILES):
            continue
        if p.is_file() and p.suffix.lower() in EXTS:
            yield p


def chunks(text):
    i = 0
    while i < len(text):
        yield i, text[i:i + SIZE]
        i += SIZE - OVERLAP


def collection():
    DB_DIR.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(DB_DIR)).get_or_create_collection("docs")


def build(root):
    col, n, skipped = collection(), 0, 0
    for p in files(root):
        text = p.read_text(encoding="utf-8", errors="replace")
        ids, docs, metas = [], [], []
        for start, chunk in chunks(text):
            if KEY_SHAPES.search(chunk):
                skipped += 1
                continue
            ids.append(f"{p.relative_to(root)}#{start}")
            docs.append(chunk)
            metas.append({"source": str(p.relative_to(root)), "line": text.count("\n", 0, start) + 1})
        if ids:
            col.upsert(ids=ids, documents=docs, metadatas=metas)
            n += len(ids)
    print(f"indexed {n} chunks from {root}; skipped {skipped} chunk(s) containing key-shaped strings")


def query(q, k):
    res = collection().query(query_texts=[q], n_results=k)
    for doc, meta, dist in zip(res["documents"][0], res["metadatas"][0], res["distances"][0]):
        print(f"--- {meta['source']}:{meta['line']}  (distance {dist:.3f})")
        print(doc.strip()[:600])


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build"); b.add_argument("folder")
    q = sub.add_parser("query"); q.add_argument("text"); q.add_argument("-k", type=int, default=5)
    a = ap.parse_args()
    if a.cmd == "build":
        build(pathlib.Path(a.folder).expanduser().resolve())
    else:
        query(a.text, a.k)
