"""Built catalogs, kept in process memory and in one JSON file per set of skill sources.

Each entry is valid for one *state*: the loader's manifest digest (every folder read and every
SKILL.md's modification time, size and inode) plus a fingerprint of PATH and of which environment
variables are set (availability depends on them). A hand edit changes the manifest, so the next
call rebuilds; every write through kenning also clears both caches (``invalidate``). The file is a
cache: unreadable or stale, it is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from .catalog import Catalog
from .sources import Source

_FORMAT = 1
_TASK_ENTRIES = 64  # catalogs for a task are kept in memory only, the newest ones


def environment_fingerprint() -> str:
    names = sorted(k for k, v in os.environ.items() if v)
    return hashlib.sha256(("\0".join(names) + "\0" + os.environ.get("PATH", "")).encode()).hexdigest()[:16]


def cache_file(cache_dir: Path, sources: tuple[Source, ...]) -> Path:
    roots = "\0".join(f"{s.name}:{s.root}" for s in sources)
    return cache_dir / f"skills-catalog-{hashlib.sha256(roots.encode()).hexdigest()[:16]}.json"


class CatalogCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._state = ""
        self._memory: dict[str, Catalog] = {}
        self._disk_read = False

    def get(self, state: str, key: str) -> Catalog | None:
        with self._lock:
            if state != self._state:
                self._state, self._memory, self._disk_read = state, {}, False
            if key in self._memory:
                return self._memory[key]
            if not self._disk_read:
                self._disk_read = True
                self._memory.update(self._read(state))
            return self._memory.get(key)

    def put(self, state: str, key: str, catalog: Catalog, *, persist: bool = True) -> None:
        with self._lock:
            if state != self._state:
                self._state, self._memory, self._disk_read = state, {}, True
            self._memory[key] = catalog
            tasks = [k for k in self._memory if k.startswith("task:")]
            for old in tasks[:-_TASK_ENTRIES]:
                del self._memory[old]
            if persist:
                self._write(state, {k: c for k, c in self._memory.items() if not k.startswith("task:")})

    def invalidate(self) -> None:
        with self._lock:
            self._state, self._memory, self._disk_read = "", {}, False
            try:
                self.path.unlink()
            except OSError:
                pass

    def _read(self, state: str) -> dict[str, Catalog]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("format") != _FORMAT or data.get("state") != state:
                return {}
            return {str(k): Catalog.from_dict(v) for k, v in data["catalogs"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def _write(self, state: str, catalogs: dict[str, Catalog]) -> None:
        data: dict[str, Any] = {"format": _FORMAT, "state": state,
                                "catalogs": {k: c.to_dict() for k, c in catalogs.items()}}
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:  # a cache that cannot be written is only slower
            try:
                tmp.unlink()
            except OSError:
                pass
