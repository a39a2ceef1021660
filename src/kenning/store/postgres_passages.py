"""The PostgreSQL store's passage vectors: embeddings of texts that are not items (a skill's
"name: description", a note's paragraph), by embedder and SHA-256 of the text, as float32 bytes.
On a secured database each role has its own (``postgres_security``: the key takes the owner in,
under the same constraint name, which the upsert names).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .postgres_base import PgBase


class PassageRows(PgBase):
    def passage_vectors(self, embedder: str, shas: Sequence[str]) -> dict[str, np.ndarray]:
        if not shas:
            return {}
        return {str(sha): np.frombuffer(blob, dtype=np.float32) for sha, blob in self._rows(
            "SELECT sha256, vector FROM passage_vectors WHERE embedder = %s AND sha256 = ANY(%s::text[])",
            (embedder, list(shas)))}

    def save_passage_vectors(self, embedder: str, vectors: Mapping[str, np.ndarray], at: float) -> None:
        if not vectors:
            return
        with self._write() as conn:
            conn.cursor().executemany(
                "INSERT INTO passage_vectors (embedder, sha256, vector, used_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT ON CONSTRAINT passage_vectors_pkey DO UPDATE SET vector = excluded.vector, used_at = excluded.used_at",
                [(embedder, sha, np.ascontiguousarray(vec, dtype=np.float32).tobytes(), at)
                 for sha, vec in vectors.items()])

    def forget_passage_vectors(self, shas: Sequence[str]) -> int:
        if not shas:
            return 0
        with self._write() as conn:
            return int(conn.execute("DELETE FROM passage_vectors WHERE sha256 = ANY(%s::text[])",
                                    (list(shas),)).rowcount)
