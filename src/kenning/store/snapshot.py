"""A file copy of the vector cache, so that a new process does not decode every vector again.

Each process that opens a store builds the cache from the vectors table; at 100k facts that read
takes about 1.2 s (150 MB of blobs through SQLite), which a CLI call, a hook on every prompt or a
fresh MCP server pays in full. The snapshot holds the same arrays in numpy's own format and loads in
a fraction of that; rows stored since it was written are then read from the database as usual.

It is only a cache, never a source of truth. It is used only if it was written for this store
(``meta.store_id``), with this embedder's dimension, and before no vector was deleted or rewritten
(``meta.vector_rewrites``, kept by triggers), if its arrays still have the checksum they were written
with (CRC-32, about 65 ms for 100k rows) and if its last row still matches the database. Anything
else, including a damaged or foreign file, means it is ignored and the cache is built from the table.
Writes go to a temporary file that replaces the old one, so a reader never sees half a snapshot.
"""

from __future__ import annotations

import json
import os
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from .. import fileio

MAGIC = "kenning vector snapshot 2"  # 2: with the language of each row
MAX_HEADER_BYTES = 16 << 20  # the JSON header: identity, sizes, scope and kind names


@dataclass
class Snapshot:
    rowids: np.ndarray
    matrix: np.ndarray
    scopes: np.ndarray
    kinds: np.ndarray
    langs: np.ndarray
    scope_names: list[str]
    kind_names: list[str]
    centre: np.ndarray | None
    bits: np.ndarray


def save(path: Path, snap: Snapshot, store_id: str, rewrites: str) -> None:
    """Write the snapshot atomically (a temporary file in the same folder, then a rename)."""
    arrays = [snap.rowids, snap.matrix, snap.scopes, snap.kinds, snap.langs, snap.bits]
    if snap.centre is not None:
        arrays.append(snap.centre)
    arrays = [np.ascontiguousarray(a) for a in arrays]
    header = {"magic": MAGIC, "store_id": store_id, "rewrites": rewrites, "rows": len(snap.rowids),
              "dim": int(snap.matrix.shape[1]), "scopes": snap.scope_names, "kinds": snap.kind_names,
              "centre": snap.centre is not None, "crc32": _checksum(arrays)}
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(path)
    fd, tmp = tempfile.mkstemp(prefix=fileio.temporary_prefix(path), suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            _write(fh, np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
            for array in arrays:
                _write(fh, array)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _remove_abandoned(path: Path) -> None:
    """Temporary files of writers that never finished (a killed process): each is as big as the
    snapshot (``fileio.abandoned``; names of older versions, without a leading dot, by age)."""
    for tmp in [*path.parent.glob(f"{path.name}*.tmp"), *path.parent.glob(f".{path.name}.*.tmp")]:
        try:
            if fileio.abandoned(tmp):
                tmp.unlink()
        except OSError:
            pass  # another process removed or replaced it meanwhile


def load(path: Path, store_id: str, rewrites: str, dim: int) -> Snapshot | None:
    """The snapshot at ``path`` if it belongs to this store and state, else None. Every array's
    declared type and shape is checked before it is read, so a damaged header cannot make the
    loader allocate what the file does not hold."""
    try:
        with path.open("rb") as fh:
            header: dict[str, Any] = json.loads(_read(fh, np.dtype(np.uint8), None).tobytes())
            if (header.get("magic"), header.get("store_id"), header.get("rewrites"), header.get("dim")) != (
                MAGIC, store_id, rewrites, dim
            ):
                return None
            rows, has_centre = int(header["rows"]), bool(header["centre"])
            words = dim // 64 if dim % 64 == 0 else 0
            rowids = _read(fh, np.dtype(np.int64), (rows,))
            matrix = _read(fh, np.dtype(np.float32), (rows, dim))
            scopes = _read(fh, np.dtype(np.int32), (rows,))
            kinds = _read(fh, np.dtype(np.int8), (rows,))
            langs = _read(fh, np.dtype(np.int8), (rows,))
            bits = _read(fh, np.dtype(np.uint64), (words, rows if has_centre else 0))
            centre = _read(fh, np.dtype(np.float32), (dim,)) if has_centre else None
            scope_names, kind_names = [str(n) for n in header["scopes"]], [str(n) for n in header["kinds"]]
    except (OSError, ValueError, EOFError, KeyError, TypeError):
        return None
    arrays = [rowids, matrix, scopes, kinds, langs, bits] + ([centre] if centre is not None else [])
    if _checksum(arrays) != header.get("crc32") or not bool(np.all(np.diff(rowids) > 0)):
        return None
    if (len(scope_names) <= int(scopes.max(initial=-1)) or len(kind_names) <= int(kinds.max(initial=-1))
            or int(min(scopes.min(initial=0), kinds.min(initial=0), langs.min(initial=0))) < 0
            or int(langs.max(initial=0)) > 1):
        return None
    return Snapshot(rowids, matrix, scopes, kinds, langs, scope_names, kind_names, centre, bits)


def _checksum(arrays: list[np.ndarray]) -> int:
    crc = 0
    for array in arrays:
        crc = zlib.crc32(np.ascontiguousarray(array).view(np.uint8).reshape(-1).data, crc)
    return crc


def _write(fh: BinaryIO, array: np.ndarray) -> None:
    np.save(fh, array, allow_pickle=False)


def _read(fh: BinaryIO, dtype: np.dtype[Any], shape: tuple[int, ...] | None) -> np.ndarray:
    """The next array, which must have ``dtype`` and ``shape`` (None: one dimension, the header's size)."""
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        got_shape, fortran, got_dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        got_shape, fortran, got_dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise ValueError(f"unexpected array format {version}")
    if shape is None and len(got_shape) == 1 and 0 <= got_shape[0] <= MAX_HEADER_BYTES:
        shape = tuple(got_shape)
    if fortran or got_dtype != dtype or tuple(got_shape) != shape:
        raise ValueError(f"array {got_dtype}{got_shape} where {dtype}{shape} was expected")
    count = int(np.prod(shape))
    array = np.fromfile(fh, dtype=dtype, count=count)
    if array.size != count:
        raise ValueError("the file ends inside an array")
    return array.reshape(shape)
