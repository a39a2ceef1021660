"""Secrets written into a skill: what kenning's redaction masks, and key formats it does not know.

The redaction (``kenning.gate.redact``) is the one list of secret shapes kenning masks before it
stores anything; a skill is scanned with it, by line, and the value is never shown. A few provider
formats that only matter in files (storage connection strings, registry and platform tokens) are
added here, each a fixed prefix and length that does not occur by chance. A provider-shaped secret
is high; a generic ``password = …`` is medium, and so is a password for a database on this machine
only (a template's development default); a value that says it is an example (AWS's documented
``AKIAIOSFODNN7EXAMPLE``, ``ghp_EXAMPLE…``, ``npm_XXXX…``, a password ``change-me``) is low.
"""

from __future__ import annotations

import re

from .model import Finding

_PROVIDER_SECRETS = {"private_key", "aws_access_key_id", "aws_secret_key", "github_token", "openai_key",
                     "anthropic_key", "slack_token", "google_api_key", "stripe_key", "jwt", "url_password"}
_LOCAL_URL_PASSWORD = re.compile(r"://[^:@/\s]+:[^@\s]+@(?:localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0|"
                                 r"host\.docker\.internal)(?=[:/\s\"']|$)", re.IGNORECASE)
_NOT_ALNUM_BEFORE = r"(?<![A-Za-z0-9_-])"
# shapes the redaction does not have (kenning.gate.redact should learn them: see the scanner's report)
FILE_SECRETS = (
    ("azure_storage_key", re.compile(r"AccountKey=[A-Za-z0-9+/]{80,90}={0,2}")),
    ("azure_sas_signature", re.compile(r"[?&]sig=[A-Za-z0-9%+/]{40,}={0,2}")),
    ("gitlab_token", re.compile(_NOT_ALNUM_BEFORE + r"glpat-[A-Za-z0-9_-]{20,}")),
    ("npm_token", re.compile(_NOT_ALNUM_BEFORE + r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
    ("pypi_token", re.compile(_NOT_ALNUM_BEFORE + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}")),
    ("huggingface_token", re.compile(_NOT_ALNUM_BEFORE + r"hf_[A-Za-z0-9]{34,}(?![A-Za-z0-9])")),
    ("sendgrid_key", re.compile(_NOT_ALNUM_BEFORE + r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}")),
    ("digitalocean_token", re.compile(_NOT_ALNUM_BEFORE + r"do[opr]_v1_[a-f0-9]{64}")),
    ("shopify_token", re.compile(_NOT_ALNUM_BEFORE + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}")),
)


def _finding(rel: str, line: int, kind: str, severity: str) -> Finding:
    return Finding("secret", severity, rel, line, f"[REDACTED:{kind}]",
                   f"a {kind.replace('_', ' ')} written into the skill (the value is not shown); read it from the "
                   "environment instead")


def findings(rel: str, text: str) -> list[Finding]:
    """The secrets in one file's text, by line; the value itself is never shown."""
    # imported here: importing kenning.gate runs its package, which loads numpy and the store, and
    # ``import kenning.skills.scan`` should not (the fix belongs in kenning.gate's __init__)
    from ...gate.redact import RedactPolicy, redact
    from ..masking import PLACEHOLDER, locate

    raw = text.split("\n")
    numbers = [n for n, line in enumerate(raw, 1) if line.strip()]  # blank lines hold no secret
    dense = "\n".join(line for line in raw if line.strip())
    written = redact(dense, RedactPolicy(categories=frozenset({"secrets"}))).text
    out: list[Finding] = []
    masked = written.split("\n")
    for m in locate(dense, written, rel) if written != dense else []:
        number = numbers[m.line - 1]
        local = m.kind == "url_password" and _LOCAL_URL_PASSWORD.search(raw[number - 1])
        if m.line <= len(masked) and _examples_only(raw[number - 1], masked[m.line - 1], PLACEHOLDER):
            out.append(_example(rel, number, m.kind))
        else:
            out.append(_finding(rel, number, m.kind, "high" if m.kind in _PROVIDER_SECRETS and not local else "medium"))
    for n, text_line in enumerate(raw, 1):
        for kind, pattern in FILE_SECRETS:
            found = [v.group() for v in pattern.finditer(text_line)]
            if found:
                out.append(_example(rel, n, kind) if all(_PLACEHOLDER_VALUE.search(v) for v in found)
                           else _finding(rel, n, kind, "high"))
    return out


# a value that says it is not a real one: AWS's documented AKIAIOSFODNN7EXAMPLE, ghp_EXAMPLE…, npm_XXXX…,
# a password "change-me"
_PLACEHOLDER_VALUE = re.compile(r"example|fake|dummy|placeholder|sample|change-?me|your[_-]|(\w)\1{7,}", re.IGNORECASE)


def _examples_only(line: str, masked_line: str, mask: re.Pattern[str]) -> bool:
    """Every value the redaction took out of ``line`` (``masked_line`` is what it left, ``mask`` its
    placeholder) is a placeholder value: the text around each mask is kept as it was, so what stands
    between those pieces in ``line`` was taken."""
    ends = [0] + [i for m in mask.finditer(masked_line) for i in m.span()] + [len(masked_line)]
    kept = [masked_line[a:b] for a, b in zip(ends[::2], ends[1::2])]
    m = re.fullmatch("(.*?)".join(re.escape(k) for k in kept), line, re.DOTALL)
    taken = list(m.groups()) if m else []
    return bool(taken) and all(_PLACEHOLDER_VALUE.search(t) for t in taken)


def _example(rel: str, line: int, kind: str) -> Finding:
    return Finding("secret", "low", rel, line, f"[REDACTED:{kind}]",
                   f"a {kind.replace('_', ' ')} shaped value that says it is an example (the value is not shown)")
