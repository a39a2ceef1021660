"""Redaction: secrets and personal data replaced by typed placeholders before anything is stored.

``redact(text, policy)`` is a pure function. Every pattern below runs over the *original* text and
proposes spans; the spans are then taken in the order of ``PATTERNS`` (most specific first), a span
that overlaps one already taken is dropped, and the text is rebuilt once. So a private key block
is one ``[REDACTED:private_key]`` however many tokens it contains, ``sk-ant-…`` is an Anthropic key
and not also an OpenAI one, and a placeholder is never rewritten by a later pattern.

Secrets (category ``secrets``), in priority order:

    private_key        a PEM ``-----BEGIN … PRIVATE KEY-----`` block (to the end of the text if unclosed)
    url_password       the password in ``scheme://user:password@host`` (user and host are kept)
    jwt                ``eyJ….eyJ….signature``
    anthropic_key      ``sk-ant-…``
    openai_key         ``sk-…``, ``sk-proj-…`` (20+ characters with letters and digits)
    github_token       ``ghp_ / gho_ / ghu_ / ghs_ / ghr_`` + 36 characters, ``github_pat_…``
    aws_access_key_id  ``AKIA / ASIA / ABIA / ACCA`` + 16 capitals or digits
    aws_secret_key     40 characters after ``aws_secret_access_key =`` (or ``:``)
    slack_token        ``xoxb- / xoxp- / xoxa- / xoxo- / xoxs- / xoxr- / xoxe-…``, ``xapp-…``
    google_api_key     ``AIza`` + 35 characters
    stripe_key         ``sk_live_ / sk_test_ / rk_live_ / rk_test_…``
    bearer_token       the token after ``Bearer`` (16+ characters with a digit); ``Authorization: Basic …``
    password, api_key, token, secret
                       the value of an assignment ``password=…``, ``"api_key": "…"``, ``token: …``,
                       ``密码：…`` (only ``=``, ``:`` or ``：``; "the password is …" in prose is left
                       alone). Values that are references, not secrets, are kept: ``$VAR``, ``${…}``,
                       ``<placeholder>``, ``os.environ[…]``, ``settings.SECRET``, ``DB_PASSWORD``,
                       a call ``get_token()``, ``***``.

Personal data (category ``personal``):

    email              ``name@domain.tld`` (except ``git@host``, an SSH remote)
    cn_id              Chinese resident ID card: 18 digits (last may be X) whose checksum is valid
    credit_card        13-19 digits (spaces or dashes between groups) with a card prefix and a valid Luhn sum
    cn_mobile          ``1[3-9]`` + 9 digits, with optional +86 / 0086 / (+86) and spaces or dashes
    phone              ``+`` and 8-15 digits; ``(415) 555-2671`` / ``415-555-2671``; ``010-12345678``

Boundaries are ASCII-only on purpose: Python counts Chinese characters as word characters, so
``\\b`` would miss ``手机13812345678``. Every quantifier is bounded, so a pathological 100k-character
input costs linear time.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import InvalidInput

MODES = ("mask", "refuse", "off")
CATEGORIES = ("secrets", "personal")
_NOT_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
_NOT_ALNUM_AFTER = r"(?![A-Za-z0-9])"


@dataclass(frozen=True)
class RedactPolicy:
    """What to look for (``categories``) and what to do with it (``mode``; ``redact`` itself only
    distinguishes "off": refusing is the caller's decision)."""

    mode: str = "mask"
    categories: frozenset[str] = field(default_factory=lambda: frozenset(CATEGORIES))

    def __post_init__(self) -> None:
        if self.mode not in MODES or not self.categories <= set(CATEGORIES):
            raise InvalidInput(f"redaction mode must be one of {', '.join(MODES)} and categories among "
                               f"{', '.join(CATEGORIES)}; got {self.mode!r}, {sorted(self.categories)}")

    @property
    def active(self) -> bool:
        return self.mode != "off" and bool(self.categories)


@dataclass(frozen=True)
class Redaction:
    """The text with placeholders, and what was found: ``(kind, count)`` pairs, never the values."""

    text: str
    found: tuple[tuple[str, int], ...] = ()

    @property
    def count(self) -> int:
        return sum(n for _, n in self.found)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.found)


@dataclass(frozen=True)
class _Pattern:
    kind: str
    category: str
    regex: re.Pattern[str]
    check: Callable[[str, re.Match[str]], bool] | None = None  # given the part to replace

    def part(self, m: re.Match[str]) -> tuple[int, int]:
        """The span that is replaced: the first of the groups "value", "dq", "sq", "bare" that
        took part (a key's value, a URL's password, …), else the whole match."""
        for name in ("value", "dq", "sq", "bare"):
            if name in self.regex.groupindex and m.group(name) is not None:
                return m.span(name)
        return m.span()


def placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# -- checks that turn a shape into a finding ---------------------------------------------------------


def _letters_and_digits(value: str, m: re.Match[str]) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _has_digit(value: str, m: re.Match[str]) -> bool:
    return any(c.isdigit() for c in value)


_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_id_valid(number: str) -> bool:
    """The ISO 7064 MOD 11-2 check digit of an 18-character Chinese resident ID."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(number[:17], _CN_ID_WEIGHTS))
    return "10X98765432"[total % 11] == number[17].upper()


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_prefix(d: str) -> bool:
    """Issuer prefixes (Visa, Mastercard, Amex, Discover, UnionPay, JCB, Diners) and their lengths:
    a Luhn sum alone passes one random number in ten."""
    n = len(d)
    if d[0] == "4":
        return n in (13, 16, 19)
    if d[:2] in ("34", "37"):
        return n == 15
    if 51 <= int(d[:2]) <= 55 or 2221 <= int(d[:4]) <= 2720:
        return n == 16
    if d[:2] in ("62", "65") or d[:4] == "6011" or 644 <= int(d[:3]) <= 649 or 3528 <= int(d[:4]) <= 3589:
        return 16 <= n <= 19
    if 300 <= int(d[:3]) <= 305 or d[:2] in ("36", "38"):
        return 14 <= n <= 19
    return False


def _card(value: str, m: re.Match[str]) -> bool:
    if len({c for c in value if not c.isdigit()}) > 1:  # one kind of separator, or none
        return False
    digits = "".join(c for c in value if c.isdigit())
    return len(set(digits)) > 1 and _card_prefix(digits) and luhn_valid(digits)


def _cn_id(value: str, m: re.Match[str]) -> bool:
    return cn_id_valid(value)


def _phone_digits(value: str, m: re.Match[str]) -> bool:
    return 8 <= sum(c.isdigit() for c in value) <= 15


_PLACEHOLDER_VALUES = frozenset(
    "null none nil true false undefined changeme change_me redacted example xxx todo tbd your_password "
    "your_token your_api_key password secret token".split()
)
_REFERENCE = re.compile(
    r"[$%{<\[(@*/~]"  # $VAR, ${VAR}, %VAR%, {{ var }}, <your key>, [REDACTED:…], (…), @file, ***, a path
    r"|\.{1,2}/|(?:os|process|env|settings|config|secrets|self|this)\.",
    re.IGNORECASE,
)
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _secret_value(min_len: int) -> Callable[[str, re.Match[str]], bool]:
    """A value after ``key=`` that is a secret, not a reference to one or a placeholder."""

    def check(value: str, m: re.Match[str]) -> bool:
        if len(value) < min_len or value.lower() in _PLACEHOLDER_VALUES or set(value) <= set("*xX.•-_#"):
            return False
        if value[0] in " \t;:,)]}":  # a closing quote taken for an opening one: `input("Password: ");`
            return False
        if _REFERENCE.match(value) or _DOTTED_NAME.fullmatch(value) or _CONSTANT.fullmatch(value):
            return False
        return m.string[m.end() : m.end() + 1] not in ("(", "[")  # a call or an index: code, not a literal

    return check


def _url_password(value: str, m: re.Match[str]) -> bool:
    return not (_REFERENCE.match(value) or set(value) <= set("*xX"))


def _email(value: str, m: re.Match[str]) -> bool:
    return m.group("local").lower() != "git"  # git@github.com:org/repo is a remote, not a person


# -- the patterns, most specific first -----------------------------------------------------------------


def _key_value(keys: str, kind: str, min_len: int) -> _Pattern:
    """``key = value`` / ``"key": "value"`` / ``key: value`` for keys ending in one of ``keys``."""
    regex = re.compile(
        r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_-]){0,4}(?:" + keys + r")(?![A-Za-z0-9_-])"
        r"[\"']?[ \t]{0,8}[:=：][ \t]{0,8}"
        r"(?:\"(?P<dq>[^\"\n]{1,300})\"|'(?P<sq>[^'\n]{1,300})'|(?P<bare>[^\s\"',;()\[\]{}<>]{1,300}))",
        re.IGNORECASE,
    )
    return _Pattern(kind, "secrets", regex, _secret_value(min_len))


_S = "secrets"
_P = "personal"
PATTERNS: tuple[_Pattern, ...] = (
    _Pattern("private_key", _S, re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----|\Z)")),
    _Pattern("url_password", _S, re.compile(
        r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/@?#\[\]]{0,128}:(?P<value>[^\s/@?#]{1,256})@"
        r"[A-Za-z0-9.-]"), _url_password),
    _Pattern("jwt", _S, re.compile(
        _NOT_ALNUM_BEFORE + r"eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{0,2000}")),
    _Pattern("anthropic_key", _S, re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,300}")),
    _Pattern("openai_key", _S, re.compile(
        r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}"), _letters_and_digits),
    _Pattern("github_token", _S, re.compile(
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})")),
    _Pattern("aws_access_key_id", _S, re.compile(_NOT_ALNUM_BEFORE + r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"
                                                 + _NOT_ALNUM_AFTER)),
    _Pattern("aws_secret_key", _S, re.compile(
        r"(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?"
        r"(?P<value>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", re.IGNORECASE)),
    _Pattern("slack_token", _S, re.compile(
        r"(?<![A-Za-z0-9_-])(?:xox[abposre]-[A-Za-z0-9-]{10,250}|xapp-[A-Za-z0-9-]{10,250})")),
    _Pattern("google_api_key", _S, re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])")),
    _Pattern("stripe_key", _S, re.compile(r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,250}")),
    _Pattern("bearer_token", _S, re.compile(
        r"(?<![A-Za-z0-9])[Bb]earer[ \t]{1,8}(?P<value>[A-Za-z0-9._~+/-]{16,4000}=*)"), _has_digit),
    _Pattern("bearer_token", _S, re.compile(
        r"Authorization[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?Basic[ \t]{1,8}(?P<value>[A-Za-z0-9+/]{8,2000}={0,2})",
        re.IGNORECASE)),
    _key_value(r"password|passwd|pwd|passphrase|密码|口令", "password", 4),
    _key_value(r"api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key", "api_key", 8),
    _key_value(r"token|access[_-]?token|auth[_-]?token|refresh[_-]?token", "token", 8),
    _key_value(r"secret|client[_-]?secret", "secret", 8),
    _Pattern("email", _P, re.compile(
        r"(?<![A-Za-z0-9._%+-])(?P<local>[A-Za-z0-9._%+-]{1,64})@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}"
        r"(?![A-Za-z0-9-])"), _email),
    _Pattern("cn_id", _P, re.compile(
        _NOT_ALNUM_BEFORE + r"[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[0-9Xx]"
        + _NOT_ALNUM_AFTER), _cn_id),
    _Pattern("credit_card", _P, re.compile(r"(?<![A-Za-z0-9.-])\d(?:[ -]?\d){12,18}(?![A-Za-z0-9-]|\.\d)"),
             _card),
    _Pattern("cn_mobile", _P, re.compile(
        r"(?<![A-Za-z0-9+])(?:(?:\+|00)86[ -]?|\(\+?86\)[ -]?|86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}"
        + _NOT_ALNUM_AFTER)),
    _Pattern("phone", _P, re.compile(
        r"(?<![A-Za-z0-9+])\+[1-9]\d{0,2}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{1,4}){1,4}"
        + _NOT_ALNUM_AFTER), _phone_digits),
    _Pattern("phone", _P, re.compile(
        r"(?<![A-Za-z0-9(.-])(?:\(\d{3}\)[ ]?|\d{3}[ .-])\d{3}[ .-]\d{4}(?![A-Za-z0-9]|[.-]\d)")),
    _Pattern("phone", _P, re.compile(r"(?<![A-Za-z0-9.-])0\d{2,3}-\d{7,8}(?![A-Za-z0-9]|[.-]\d)")),
)


_SECRET_FIELD = (
    (re.compile(r"(?:^|[\s_.-])(?:password|passwd|pwd|passphrase)$|密码|口令", re.IGNORECASE), "password"),
    (re.compile(r"(?:^|[\s_.-])(?:api[\s_-]?key|apikey|access[\s_-]?key|secret[\s_-]?key|private[\s_-]?key)$"
                r"|密钥", re.IGNORECASE), "api_key"),
    (re.compile(r"(?:^|[\s_.-])(?:token|access[\s_-]?token|auth[\s_-]?token|refresh[\s_-]?token)$|令牌",
                re.IGNORECASE), "token"),
    (re.compile(r"(?:^|[\s_.-])(?:secret|client[\s_-]?secret|credentials?)$", re.IGNORECASE), "secret"),
)


def secret_field(name: str) -> str | None:
    """The kind of secret a field called ``name`` holds ("db_password" -> "password"), or None: a
    structured value ``{"password": "hunter2"}`` has no ``key=`` in its text to give it away."""
    for regex, kind in _SECRET_FIELD:
        if regex.search(name.strip()):
            return kind
    return None


def _spans(text: str, categories: frozenset[str]) -> list[tuple[int, int, str]]:
    """The spans to replace: taken in pattern order, dropping any that overlap one already taken."""
    starts: list[int] = []  # of the taken spans, which are kept sorted and disjoint
    taken: list[tuple[int, int, str]] = []
    for pattern in PATTERNS:
        if pattern.category not in categories:
            continue
        for m in pattern.regex.finditer(text):
            start, end = pattern.part(m)
            if start >= end or pattern.check is not None and not pattern.check(text[start:end], m):
                continue
            i = bisect_right(starts, start)
            if i and taken[i - 1][1] > start or i < len(taken) and taken[i][0] < end:
                continue
            starts.insert(i, start)
            taken.insert(i, (start, end, pattern.kind))
    return taken


def redact(text: str, policy: RedactPolicy | None = None) -> Redaction:
    """``text`` with every secret and piece of personal data of the policy's categories replaced by
    ``[REDACTED:kind]``, and how many of each kind were found (mode "off": unchanged, nothing found)."""
    policy = policy or RedactPolicy()
    if not policy.active or not text:
        return Redaction(text)
    spans = _spans(text, policy.categories)
    if not spans:
        return Redaction(text)
    parts: list[str] = []
    pos = 0
    for start, end, kind in spans:
        parts.append(text[pos:start])
        parts.append(placeholder(kind))
        pos = end
    parts.append(text[pos:])
    counts = Counter(kind for _, _, kind in spans)
    return Redaction("".join(parts), tuple(sorted(counts.items())))
