"""Exfiltration told across the sentences of one paragraph: the secret in one, the address in the next.

``prose.PROSE_SEND`` reads one sentence. An instruction that names the secret in one sentence
("take the text of the repository's ``.env`` file, URL-encode it") and the address in the next ("put
it in the ``cfg`` parameter of https://…") says the same in two. A paragraph (outside fenced blocks)
that names something sensitive, holds an outside address, and either sends or builds data into an
address (a query parameter left open or given a placeholder: ``?k=<result>``, ``?cfg=``) is a
finding: high, since a paragraph is a looser unit than a sentence (a key-rotation runbook may name
SSH keys and GitHub's settings page in one), so a person looks. Not reported where a line of the
paragraph already has an exfiltration finding, nor where the paragraph forbids the send.
"""

from __future__ import annotations

import re

from .markdown import LIST_ITEM, fences, paragraphs
from .model import Finding, short
from .prose import _NOT, _SECRET_WORDS, _SEND, _WHOLE_ENV
from .rules import CREDENTIAL

_SECRET = re.compile(CREDENTIAL + r"|" + _SECRET_WORDS + r"|" + _WHOLE_ENV + r"|\bsecret\s+values?\b" +
                     r"|\$\{?\w*(?:TOKEN|KEY|SECRET|PASSWORD|PASSWD)\b|`\.env(?:\.[\w-]+)?`|\.env\s+(?:file|文件)|(?:the\s+)?(?:text|contents?)\s+of\s+[^\n.]{0,40}\.env\b",
                     re.IGNORECASE)
_URL = re.compile(r"https?://[^\s`\"'<>)]+", re.IGNORECASE)
_INTO_URL = re.compile(r"https?://[^\s`\"'<>)]*[?&][\w-]+=(?:$|[`\s\"')]|<[^>\s]+>|\{[^}\s]+\}|\$\{?\w+|[A-Z][A-Z_]*\b)|"
                       r"\bquery\s+(?:string|parameter)|\bURL-?encod(?:e|ing)|参数|パラメータ", re.IGNORECASE)
_SENDS = re.compile(_SEND, re.IGNORECASE)
_FORBIDS = re.compile(_NOT + r"\s*(?:\w+\s+){0,2}?(?:" + _SEND + ")", re.IGNORECASE)


def findings(rel: str, text: str, found: list[Finding]) -> list[Finding]:
    out: list[Finding] = []
    for first, paragraph in _items(paragraphs(text, fences(text))):
        last = first + paragraph.count("\n")
        if any(f.kind == "exfiltration" and f.line is not None and first <= f.line <= last for f in found):
            continue
        joined = " ".join(paragraph.split())
        secret = _SECRET.search(joined)
        if secret is None or not _URL.search(joined) or _FORBIDS.search(joined):
            continue
        if _SENDS.search(joined) or _INTO_URL.search(joined):
            out.append(Finding("exfiltration", "high", rel, first, short(secret.group()), "a paragraph names "
                               "something secret, an address outside and sends it there or builds it into the address"))
    return out


def _items(parts: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Paragraphs, with a list item's indented paragraphs after a blank line joined to it (they are one step)."""
    out: list[tuple[int, str]] = []
    for first, text in parts:
        if out and text.startswith(("  ", "\t")) and LIST_ITEM.match(out[-1][1]):
            out[-1] = (out[-1][0], out[-1][1] + "\n" + text)
        else:
            out.append((first, text))
    return out

