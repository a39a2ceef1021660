"""Shared pieces of the benchmark scripts in ``bench/``: data, a fresh store per task, two baselines.

The model: every benchmark task (one LoCoMo conversation, one MemDaily user, one paraphrase split)
is ingested into a *fresh* kenning store through the public API, exactly as a user would. Kenning
merges texts with the same content into one fact, so everything is scored in fact ids: a document
id maps to its fact, gold sets are mapped before comparison, and the baselines search the same
deduplicated facts. The two baselines show what each half of kenning's hybrid recall does alone:

* ``FtsBM25``: SQLite FTS5 ``bm25()`` (k1 = 1.2, b = 0.75, FTS5's built-in constants) over the very
  text kenning indexes: ``kenning.text.segment`` of each fact, the tokenizer of kenning's own
  migration, and the MATCH expression kenning builds from ``query_terms``.
* ``StoredDense``: cosine over the vectors kenning stored at ingest (read from its database file),
  with query vectors from the same embedder. Reusing the stored matrix means the corpus is
  embedded once per task, not twice; the query vector is a cache hit after ``recall``.

The benchmark data is read-only shared data: ``load_recipes`` imports ``recipes.py`` from its folder;
nothing is ever copied into the repository.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pkgutil
import platform
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

import kenning
import kenning.retrieval
from kenning import Kenning
from kenning.models import DEFAULT_SCOPE
from kenning.store.migrations import MIGRATIONS
from kenning.text import fts_match_expression, query_terms, segment

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "bench"

DocId = Hashable


def load_recipes(data_dir: str | os.PathLike[str]) -> ModuleType:
    """Import ``recipes.py`` (loaders and metric functions) from the shared benchmark folder."""
    path = Path(data_dir).expanduser().resolve() / "recipes.py"
    if not path.is_file():
        raise SystemExit(f"no recipes.py in {path.parent}; pass --data with the benchmark data folder")
    spec = importlib.util.spec_from_file_location("bench_recipes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(*args: str) -> str:
    out = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False)
    return out.stdout.strip()


def src_changes() -> list[str]:
    """Uncommitted changes under ``src/`` (``git status --porcelain`` lines)."""
    return _git("status", "--porcelain", "--", "src").splitlines()


def git_commit() -> str:
    """Short commit of the repository, with ``+dirty`` when ``src/`` has uncommitted changes."""
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    return commit + ("+dirty" if src_changes() else "")


def run_config(kb: Kenning, commit: str) -> dict[str, Any]:
    """What a result depends on: library version and commit, embedder, interpreter, SQLite.

    ``commit`` should be taken when the process starts: kenning is imported then, and others may
    commit to the repository while a long benchmark runs.
    """
    emb = kb.embedder
    return {
        "kenning": kenning.__version__,
        "kenning_path": str(Path(kenning.__file__).parent),
        "commit": commit,
        "src_changes": src_changes(),
        "embedder": emb.name,
        "dim": emb.dim,
        "threads": getattr(emb, "threads", None),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "numpy": np.__version__,
        "cpus": os.cpu_count(),
        "argv": sys.argv,
    }


# -- a fresh kenning store per task ---------------------------------------------------------------


def setting(name: str) -> tuple[ModuleType, str]:
    """The module and constant a ``--set`` name refers to: a constant of one of the modules of
    ``kenning.retrieval`` (``LEXICAL_WEIGHT``) or a dotted path under ``kenning`` (``store.vectors.RESCORE``)."""
    module_name, _, attr = name.rpartition(".")
    if not module_name:
        return retrieval_setting(name), attr
    try:
        module = importlib.import_module(f"kenning.{module_name}")
    except ImportError:
        raise SystemExit(f"--set {name}: there is no module kenning.{module_name}") from None
    if not attr.isupper() or not hasattr(module, attr):
        raise SystemExit(f"--set {name}: {module.__name__} has no setting {attr!r}")
    return module, attr


def retrieval_setting(name: str) -> ModuleType:
    """The module of ``kenning.retrieval`` that holds the constant ``name``: the one that reads it, so
    that setting it there changes what recall does (the package's own ``LEXICAL_WEIGHT`` is a copy)."""
    package = kenning.retrieval
    holders = [module for info in pkgutil.iter_modules(package.__path__)
               if name in vars(module := importlib.import_module(f"{package.__name__}.{info.name}"))]
    if not name.isupper() or not holders:
        raise SystemExit(f"--set {name}: no module of kenning.retrieval has a setting {name!r}")
    if len(holders) > 1:
        raise SystemExit(f"--set {name}: {', '.join(m.__name__ for m in holders)} all hold {name!r}; "
                         "name the module (retrieval.MODULE.NAME)")
    return holders[0]


def apply_settings(values: dict[str, float], defaults: dict[str, Any]) -> None:
    """Set each named constant, as the type of its default (an int stays an int)."""
    for name, value in values.items():
        module, attr = setting(name)
        setattr(module, attr, type(defaults[name])(value))


def current_settings(names: Iterable[str]) -> dict[str, Any]:
    return {name: getattr(*setting(name)) for name in names}


@dataclass
class Ingested:
    """A task's corpus inside a kenning store, and how document ids map to kenning's facts."""

    fact_of: dict[DocId, str]
    docs_of: dict[str, list[DocId]]
    content: dict[str, str]
    seconds: float
    skipped: list[DocId] = field(default_factory=list)

    def facts(self, doc_ids: Iterable[DocId]) -> set[str]:
        return {self.fact_of[d] for d in doc_ids if d in self.fact_of}

    def doc(self, fact_id: str) -> DocId:
        """The first document that became this fact (for reports in the dataset's own ids)."""
        return self.docs_of[fact_id][0]


def ingest(kb: Kenning, corpus: dict[DocId, str], progress: Callable[[int], None] | None = None) -> Ingested:
    """``remember_many`` the whole corpus; empty documents (kenning refuses them) are skipped."""
    ids = [d for d, text in corpus.items() if str(text).strip()]
    skipped = [d for d, text in corpus.items() if not str(text).strip()]
    start = time.perf_counter()
    facts = kb.remember_many([str(corpus[d]) for d in ids], progress=progress)
    seconds = time.perf_counter() - start
    fact_of: dict[DocId, str] = {}
    docs_of: dict[str, list[DocId]] = {}
    content: dict[str, str] = {}
    for doc_id, fact in zip(ids, facts, strict=True):
        fact_of[doc_id] = fact.id
        docs_of.setdefault(fact.id, []).append(doc_id)
        content.setdefault(fact.id, fact.content)
    return Ingested(fact_of, docs_of, content, seconds, skipped)


# -- baselines --------------------------------------------------------------------------------------


def kenning_fts_tokenizer() -> str:
    """The ``tokenize = ...`` argument of kenning's own FTS5 table, read from its migrations."""
    for _, _, sql in reversed(MIGRATIONS):
        m = re.search(r"items_fts USING fts5 \((.*?)\);", sql, re.S)
        if m:
            return m.group(1)
    raise RuntimeError("kenning's migrations define no items_fts table; update bench/common.py")


class FtsBM25:
    """Lexical baseline: an in-memory FTS5 table holding ``segment(content)`` of every fact."""

    def __init__(self, content: dict[str, str]) -> None:
        self.ids = list(content)
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute(f"CREATE VIRTUAL TABLE docs USING fts5 ({kenning_fts_tokenizer()})")
        self.conn.executemany(
            "INSERT INTO docs (rowid, body) VALUES (?, ?)",
            ((i, segment(content[f])) for i, f in enumerate(self.ids)),
        )

    def search(self, query: str, k: int) -> list[str]:
        match = fts_match_expression(query_terms(query))
        if match is None:
            return []
        rows = self.conn.execute(
            "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?", (match, k)
        ).fetchall()
        return [self.ids[r[0]] for r in rows]

    def close(self) -> None:
        self.conn.close()


class StoredDense:
    """Semantic baseline: cosine over the vectors kenning stored for the facts of ``scope``.

    The vectors are read from the database file (the ``vectors`` table, float32 blobs) over a
    read-only connection, so the baseline depends on kenning's schema, not on its search code.
    """

    def __init__(self, kb: Kenning, scope: str = DEFAULT_SCOPE) -> None:
        conn = sqlite3.connect(f"file:{kb.settings.db_path}?mode=ro", uri=True)
        try:
            rows = conn.execute(
                "SELECT i.id, v.vec FROM vectors v JOIN items i ON i.rowid = v.item_rowid "
                "WHERE i.scope = ? ORDER BY i.rowid",
                (scope,),
            ).fetchall()
        finally:
            conn.close()
        self.ids = [str(r[0]) for r in rows]
        blob = b"".join(r[1] for r in rows)
        self.matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(rows), kb.embedder.dim)

    def search(self, qvec: np.ndarray, k: int) -> list[str]:
        scores = self.matrix @ qvec
        k = min(k, len(self.ids))
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self.ids[i] for i in top]


# -- scores -----------------------------------------------------------------------------------------


def parse_metric(spec: str) -> tuple[str, int]:
    """'R@10' -> ('R', 10)."""
    name, _, k = spec.partition("@")
    return name, int(k)


class Scores:
    """Per-query metric values, by system and by group ('all' and, say, a LoCoMo category)."""

    def __init__(self, recipes: ModuleType, metrics: Sequence[str], systems: Sequence[str]) -> None:
        self.functions = recipes.METRICS
        self.metrics = list(metrics)
        self.systems = list(systems)
        self.values: dict[str, dict[str, dict[str, list[float]]]] = {s: {} for s in systems}

    def add(self, system: str, groups: Sequence[str], gold: set[str], ranked: list[str]) -> dict[str, float]:
        row = {}
        for spec in self.metrics:
            name, k = parse_metric(spec)
            row[spec] = float(self.functions[name](gold, ranked, k))
        for group in groups:
            bucket = self.values[system].setdefault(group, {})
            for spec, value in row.items():
                bucket.setdefault(spec, []).append(value)
        return row

    def groups(self) -> list[str]:
        first = self.values[self.systems[0]]
        return ["all", *sorted(g for g in first if g != "all")]

    def count(self, group: str) -> int:
        bucket = self.values[self.systems[0]].get(group, {})
        return len(next(iter(bucket.values()), []))

    def mean(self, system: str, group: str, metric: str) -> float | None:
        values = self.values[system].get(group, {}).get(metric)
        return round(100 * sum(values) / len(values), 1) if values else None

    def summary(self) -> dict[str, dict[str, dict[str, float | int | None]]]:
        return {
            s: {g: {"n": self.count(g), **{m: self.mean(s, g, m) for m in self.metrics}} for g in self.groups()}
            for s in self.systems
        }


def percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(np.asarray(values), q)) if len(values) else None


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Write ``data`` as JSON through a temporary file and a rename (a crash leaves no half file)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=1, default=str)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(target)
    return target


def with_src(env: dict[str, str], src: Path | None) -> dict[str, str]:
    """``env`` with another checkout's ``src`` first on PYTHONPATH (to run its kenning beside this one)."""
    if src is None:
        return env
    return {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(src.resolve()), env.get("PYTHONPATH")]))}


# -- query vectors in batches -----------------------------------------------------------------------


class BatchedQueries:
    """An embedder whose query vectors for known texts were made up front, in batches by length.

    One query at a time, the engine runs a batch of one per call; the benchmark queries are known
    before the run, so they are embedded 32 at a time, shortest first (similar lengths pad least),
    with the embedder's own thread count. Anything else is passed to the wrapped embedder.
    """

    def __init__(self, embedder: Any, texts: Iterable[str], batch_size: int = 32) -> None:
        self.inner = embedder
        self.name = embedder.name
        self.dim = embedder.dim
        self.threads = getattr(embedder, "threads", None)
        unique = sorted(set(texts), key=len)
        self.vectors: dict[str, np.ndarray] = {}
        model = getattr(embedder, "_model", None)
        for start in range(0, len(unique), batch_size):
            chunk = unique[start : start + batch_size]
            if model is None:  # another embedder: one call per query
                rows = np.stack([embedder.embed_query(t) for t in chunk])
            else:
                with embedder._lock:
                    fitted = [embedder._fit(t, True) for t in chunk]
                    rows = np.asarray(model.query(fitted), dtype=np.float32).reshape(len(chunk), self.dim)
            self.vectors.update(zip(chunk, rows))

    def embed_query(self, text: str) -> np.ndarray:
        vec = self.vectors.get(text)
        return vec if vec is not None else self.inner.embed_query(text)

    def embed_passages(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        return self.inner.embed_passages(texts, progress)


class KnownVectors:
    """Passage vectors from a table given up front; a text not in it goes to ``inner`` (counted), or
    is an error when there is none (a writer process loads no model)."""

    def __init__(self, name: str, dim: int, known: dict[str, np.ndarray], inner: Any = None) -> None:
        self.name, self.dim, self.known, self.inner = name, dim, known, inner
        self.missed = 0

    def embed_query(self, text: str) -> np.ndarray:
        if self.inner is None:
            raise RuntimeError(f"no query vector for {text[:60]!r}: this embedder only knows passages")
        return np.asarray(self.inner.embed_query(text), dtype=np.float32)

    def embed_passages(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing = [i for i, t in enumerate(texts) if t not in self.known]
        if missing and self.inner is None:
            raise RuntimeError(f"no stored vector for {texts[missing[0]][:60]!r} ({len(missing)} texts)")
        for i, t in enumerate(texts):
            if t in self.known:
                out[i] = self.known[t]
        if missing:
            self.missed += len(missing)
            out[missing] = self.inner.embed_passages([texts[i] for i in missing])
        if progress is not None:
            progress(len(texts))
        return out
