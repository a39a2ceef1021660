"""Packages installed from where no one answers for them: other indexes, tarball URLs, look-alike names.

An install runs code (``setup.py``, a build backend, an npm ``postinstall``), so where a package comes
from matters as much as a download piped to a shell:

    other index     ``pip install --index-url``/``--extra-index-url`` (also in a requirements file),
                    ``npm --registry``, an ``.npmrc`` ``registry=``: an index beside the public one may
                    serve a higher version of any name (dependency confusion); high, critical over plain
                    http, from a bare IP address or with ``--trusted-host``
    package URL     a package installed from a tarball or git URL of a host that is not a public
                    index or forge (``npm install https://cdn.x/lodash-patched.tgz``, a package.json
                    dependency given as such a URL, ``pip install git+https://git.x/…``): high, critical
                    over plain http or from a bare IP address
    look-alike      a name installed that is one swap of two letters, or one letter, from a popular
                    package (``reqeusts``, ``pandsa``, ``python-dateutils``): typosquatting, critical

The public indexes and forges (PyPI, the PyTorch and NVIDIA wheel indexes, npm, Yarn, GitHub,
GitLab, Bitbucket) are not findings: a skill that installs ``torch`` from download.pytorch.org is
doing what its documentation says.
"""

from __future__ import annotations

import re

from .deobfuscate import Line
from .model import Finding, short

_PUBLIC = re.compile(r"^(?:[\w-]+\.)*(?:pypi\.org|pythonhosted\.org|pytorch\.org|pypi\.nvidia\.com|npmjs\.org|npmjs\.com|"
                     r"yarnpkg\.com|github\.com|githubusercontent\.com|gitlab\.com|bitbucket\.org|"
                     r"npm\.pkg\.github\.com|codeload\.github\.com)$", re.IGNORECASE)
_URL = re.compile(r"(?:git\+)?(https?)://([^/\s\"'`:@]+@)?([^/\s\"'`:]+)", re.IGNORECASE)
_PIP = r"\b(?:pip3?|uv\s+pip|python[23]?\s+-m\s+pip|pipx|poetry\s+source\s+add|uv)\b"
_INDEX = re.compile(r"(?:" + _PIP + r"[^\n]{0,200}?)?(?:--(?:extra-)?index-url|--trusted-host)[\s=]+(\S+)|"
                    r"" + _PIP + r"[^\n|;&#]{0,200}?\s-i[\s=]+(\S+)|"  # a bare -i is pip's only after pip (grep -i is not)
                    r"^\s*(?:--(?:extra-)?index-url|-i)\s+(\S+)|"
                    r"(?:\bnpm|\byarn|\bpnpm)\b[^\n]{0,200}--registry[\s=]+(\S+)|^\s*(?:@[\w-]+:)?registry\s*=\s*(\S+)",
                    re.IGNORECASE)
_INSTALL = re.compile(r"(?:" + _PIP + r"\s+install|\b(?:npm|pnpm)\s+(?:install|i|add)|\byarn\s+add)\b([^\n;&|#]*)",
                      re.IGNORECASE)
_DEPENDENCY_URL = re.compile(r"^\s*\"[@\w./-]+\"\s*:\s*\"((?:git\+)?https?://[^\"]+)\"", re.IGNORECASE)
# the names most installed from PyPI and from npm: a name one typo from one of them is a trap laid for a typo
PYPI_POPULAR = frozenset((
    "requests", "numpy", "pandas", "matplotlib", "scipy", "urllib3", "setuptools", "python-dateutil", "boto3",
    "botocore", "certifi", "charset-normalizer", "idna", "pyyaml", "cryptography", "jinja2", "flask", "django",
    "fastapi", "uvicorn", "pydantic", "sqlalchemy", "psycopg2", "pillow", "beautifulsoup4", "lxml", "scikit-learn",
    "tensorflow", "torch", "transformers", "jupyterlab", "notebook", "pytest", "selenium", "openai", "anthropic",
    "colorama", "httpx", "aiohttp", "tqdm", "pyjwt", "paramiko", "redis", "celery", "pymongo", "seaborn", "plotly",
    "openpyxl", "python-docx", "pypdf", "reportlab", "playwright", "rich", "click", "typer",
))
NPM_POPULAR = frozenset((
    "lodash", "express", "react", "react-dom", "axios", "typescript", "webpack", "eslint", "prettier", "moment",
    "chalk", "commander", "dotenv", "jquery", "vue", "next", "nodemon", "jest", "mocha", "electron", "puppeteer",
    "socket.io", "mongoose", "body-parser", "cross-env", "uuid", "yargs", "inquirer", "discord.js", "node-fetch",
))
# real packages one slip from a popular one
_REAL_NEIGHBOURS = frozenset(("pyaml", "request", "jinja", "pytest-", "flask-", "boto"))
_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*")


def findings(file: str, lines: list[Line]) -> list[Finding]:
    out: list[Finding] = []
    for ln in lines:
        view = ln.view
        lower = view.lower()
        if not any(w in lower for w in ("index", "registry", "trusted-host", "install", "add", "http")):
            continue
        for found in (_index(file, ln), _package_url(file, ln), _look_alike(file, ln)):
            if found is not None:
                out.append(found)
    return out


def _host_risk(url: str) -> tuple[str, str] | None:
    """(severity, what) for a package source URL that is not a public index or forge, else None."""
    m = _URL.search(url)
    if m is None:
        return None
    scheme, host = m.group(1).lower(), m.group(3).lower()
    if _PUBLIC.match(host) or host in ("localhost", "127.0.0.1"):
        return None
    if scheme == "http" or re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){3}", host):
        return "critical", f"{host}, over plain http or at a bare IP address: anyone on the way can serve any code"
    return "high", f"{host}, which is not a public index or forge"


def _index(file: str, ln: Line) -> Finding | None:
    m = _INDEX.search(ln.view)
    if m is None:
        return None
    source = next(g for g in m.groups() if g)
    risk = _host_risk(source) if "://" in source else ("critical", f"{source} trusted without TLS checks")
    if risk is None:
        return None
    severity = "critical" if "--trusted-host" in ln.view.lower() else risk[0]
    return Finding("download_exec", severity, file, ln.number, short(m.group()), "packages come from another index, "
                   f"{risk[1]}: an index beside the public one can serve any name at a higher version "
                   "(dependency confusion), and installing runs its code")


def _package_url(file: str, ln: Line) -> Finding | None:
    install = _INSTALL.search(ln.view)
    urls = [u for u in re.findall(r"(?:git\+)?https?://\S+", install.group(1))] if install else []
    # a "name": "https://…" pair is a dependency in a package manifest, not in a Python dict or a JSON schema
    dependency = _DEPENDENCY_URL.match(ln.view) if file.rsplit("/", 1)[-1] == "package.json" else None
    urls += [dependency.group(1)] if dependency else []
    for url in urls:
        risk = _host_risk(url)
        if risk is not None:
            return Finding("download_exec", risk[0], file, ln.number, short(url), f"a package is installed from "
                           f"{risk[1]}; installing runs its code, and no index vouches for what that URL serves")
    return None


def _look_alike(file: str, ln: Line) -> Finding | None:
    install = _INSTALL.search(ln.view)
    if install is None:
        return None
    for arg in install.group(1).split():
        m = _NAME.match(arg.strip("\"'"))
        name = m.group().lower() if m else ""
        popular = NPM_POPULAR if re.match(r"\s*(?:npm|pnpm|yarn)\b", install.group()) else PYPI_POPULAR
        if len(name) < 5 or name in popular or name in _REAL_NEIGHBOURS or arg.startswith("-"):
            continue
        near = next((p for p in sorted(popular) if _one_typo(name, p)), None)
        if near is not None:
            return Finding("download_exec", "critical", file, ln.number, short(arg), f"installs {name!r}, one typo "
                           f"from the popular package {near!r}: a look-alike name laid for a typo (typosquatting)")
    return None


def _one_typo(name: str, popular: str) -> bool:
    """Two adjacent letters swapped, an "s" added or left out at the end, or a letter doubled or
    undoubled: the slips a hand makes, not another word ("pyaml", "jinja" are real packages)."""
    if name == popular:
        return False
    if len(name) == len(popular):
        diff = [i for i, (a, b) in enumerate(zip(name, popular)) if a != b]
        return (len(diff) == 2 and diff[1] == diff[0] + 1 and name[diff[0]] == popular[diff[1]]
                and name[diff[1]] == popular[diff[0]])
    shorter, longer = sorted((name, popular), key=len)
    if len(longer) != len(shorter) + 1:
        return False
    if longer == shorter + "s":
        return True
    return any(longer[:i] + longer[i + 1:] == shorter and longer[i] == longer[i - 1] for i in range(1, len(longer)))
