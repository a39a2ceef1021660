"""The SQLite store's passage vectors (migration 3): embeddings of texts that are not items (a
skill's "name: description", a note's paragraph), by embedder and SHA-256 of the text, as float32 blobs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .sqlite_base import SQLiteBase, chunks, marks


class PassageRows(SQLiteBase):
    def passage_vectors(self, embedder: str, shas: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for chunk in chunks(shas):
                for sha, blob in self._conn.execute(
                        "SELECT sha256, vector FROM passage_vectors WHERE embedder = ? "
                        f"AND sha256 IN ({marks(len(chunk))})", [embedder, *chunk]):
                    out[str(sha)] = np.frombuffer(blob, dtype=np.float32)
        return out

    def save_passage_vectors(self, embedder: str, vectors: Mapping[str, np.ndarray], at: float) -> None:
        if not vectors:
            return
        with self._write() as conn:
            conn.executemany(
                "INSERT INTO passage_vectors (embedder, sha256, vector, used_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (embedder, sha256) DO UPDATE SET vector = excluded.vector, used_at = excluded.used_at",
                [(embedder, sha, np.ascontiguousarray(vec, dtype=np.float32).tobytes(), at)
                 for sha, vec in vectors.items()])

    def forget_passage_vectors(self, shas: Sequence[str]) -> int:
        deleted = 0
        with self._write() as conn:
            for chunk in chunks(shas):
                deleted += conn.execute(f"DELETE FROM passage_vectors WHERE sha256 IN ({marks(len(chunk))})",
                                        chunk).rowcount
        return deleted
