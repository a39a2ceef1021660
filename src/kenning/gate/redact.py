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

    A provider's key is found glued to the text before it too ("token-sk-ant-…", "ui-sk-proj-…",
    "tAKIA…", "botxoxb-1…"); then what follows the prefix must be what only a key has, since "sk-"
    ends English words: for sk-ant-, sk- and sk_live_ a generated run (16+ letters and digits in both
    cases, changing between digits, capitals and small letters at 0.35 of its characters or more),
    and for sk- without proj- 40+ characters, so "risk-assessment-2024-q3-report" holds no key; for
    Slack digits after the prefix; for GitHub and Google letters and digits; an AWS key id after a
    small letter or a digit, not a capital (inside a longer run of capitals it is a coincidence).
    bearer_token       the token after ``Bearer`` (16+ characters with a digit); ``Authorization: Basic …``
    password, api_key, token, secret
                       the value of an assignment ``password=…``, ``"api_key": "…"``, ``API key: …``,
                       ``token: …``, ``WiFi密码：…``, ``密钥：…`` (``=``, ``:`` or ``：``); the value ends at
                       white space or at full-width punctuation (``口令：abc123，明天改`` keeps ``，明天改``),
                       except a passphrase's: ``passphrase: correct horse battery staple`` is up to 8
                       words, to the end of the clause (not when its first word is code or a placeholder:
                       ``passphrase = args.passphrase or default``).
                       Also a command-line option ``--password VALUE`` / ``--db-token VALUE`` (not
                       ``--ask-pass``, ``--no-password``, ``--secret id=…``), ``mysql … -pVALUE`` and
                       ``sshpass -p VALUE``.
                       In prose, a secret noun, a verb, then a value: "the staging password is …",
                       "the password for the db was changed to …", "the API key is now …",
                       "数据库密码是 …", "口令改成 …", "密钥为 …". Nouns: password, passphrase, passcode,
                       passwd, 密码, 口令 (password); API / access / secret / private key, 密钥, 秘钥
                       (api_key); token, access / auth / API token, 令牌 (token); secret, client secret
                       (secret). Verbs: is, was, 's, has been, will be (+ now / still / currently),
                       set / changed / reset / updated to; 是, 为, 改成, 改为, 设为, 设置为, 换成, 变成,
                       重置为, 修改为 … (+ 了, ：). What the value must look like, since "the password is
                       required" and "密码是加密存储的" have the same shape:
                         password  4+ characters with a digit or a symbol ("Tr0ub4dor&3", "sunflower42");
                                   a plain word ("required", "stored", "too", "the", "sunflower") is kept
                                   unless quoted ("the passphrase is 'correct horse battery'")
                         api_key, token, secret
                                   8+ characters, letters and digits, no space (quoted or not):
                                   "the token is valid for 60 minutes" is kept
                       A Chinese bare value is ASCII (``密码是abc123456，…``); a Chinese one must be
                       quoted (``密码是“芝麻开门”``).
    pin                PINs and one-time codes: "my PIN is 4821", "PIN code: 482193", "the OTP was
                       123456", "PIN码：4821", "验证码是 123456": the value is 4-8 digits exactly, so
                       "the PIN is four digits" is kept

    In all of these a value is kept when it is a reference or a placeholder, not a secret:
    ``$VAR``, ``${…}``, ``<placeholder>``, ``os.environ[…]``, ``settings.SECRET``, ``DB_PASSWORD``,
    a call ``get_token()``, a URL, ``***``, ``xxxx``, ``changeme``, ``example``, ``n/a``, and any name
    that says "put yours here": the secret noun alone or after my / your / the / example / sample /
    dummy / fake / test / default / placeholder / insert / enter, optionally + "here":
    ``mypassword``, ``your-password``, ``YOUR_API_KEY_HERE``, ``mysecret``, ``mytoken``,
    ``'your password here'``. A word plus digits is a weak password, not a placeholder:
    ``secret123``, ``password123``, ``hunter2`` are masked. In prose a few words with digits are
    kept too ("1Password", "md5", "e.g."), and so is a quantity ("12 characters", "8-16位", "3600s").

Personal data (category ``personal``):

    email              ``name@domain.tld`` (except ``git@host``, an SSH remote)
    cn_id              Chinese resident ID card: 18 digits (last may be X) whose checksum is valid
    iban               an IBAN, compact or in groups of four (``DE89 3704 0044 0532 0130 00``), whose
                       country and length match and whose MOD 97 check is valid
    credit_card        13-19 digits (spaces or dashes between groups) with a card prefix and a valid Luhn sum
    cn_mobile          ``1[3-9]`` + 9 digits, with optional +86 / 0086 / (+86) and spaces or dashes
    us_ssn             US Social Security number ``078-05-1120`` (three groups, dashes, not inside a
                       longer run of digits or dashes), or 9 digits after "SSN" / "social security
                       number" (``SSN: 078051120``, ``078 05 1120``); area 001-899 but not 666, group and
                       serial not zero. Dates (``2024-05-12``) and phone numbers (``415-555-2671``)
                       have other groupings
    phone              ``+`` and 8-15 digits; ``(415) 555-2671`` / ``415-555-2671``; ``010-12345678``

    A number-shaped match (cn_id, credit_card, cn_mobile, us_ssn, phone) is a quantity, not personal data,
    when a unit follows it ("took 13812345678 ms", "4111111111111111 bytes", "13812345678次",
    "耗时13812345678毫秒") or a measuring word comes before it ("took", "latency", "size", "count",
    "total", "耗时", "共计", …), or when it is part of a decimal ("0.13812345678").

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
_Check = Callable[[str, re.Match[str]], bool]  # given the part to replace and the match


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
    check: _Check | None = None

    def part(self, m: re.Match[str]) -> tuple[int, int]:
        return _part(m)


_VALUE_GROUPS = ("value", "dq", "sq", "cq", "bq", "bare")


def _part(m: re.Match[str]) -> tuple[int, int]:
    """The span that is replaced: the first of the value groups that took part (a key's value,
    a URL's password, …), else the whole match."""
    for name in _VALUE_GROUPS:
        if name in m.re.groupindex and m.group(name) is not None:
            return m.span(name)
    return m.span()


def placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# -- checks that turn a shape into a finding ---------------------------------------------------------


def _mixes_letters_and_digits(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _letters_and_digits(value: str, m: re.Match[str]) -> bool:
    return _mixes_letters_and_digits(value)


def _has_digit(value: str, m: re.Match[str]) -> bool:
    return any(c.isdigit() for c in value)


def _char_class(c: str) -> int:
    return 0 if c.isdigit() else 1 if c.isupper() else 2


_RUN = re.compile(r"[A-Za-z0-9]{16,}")


def _generated(value: str) -> bool:
    """Whether ``value`` holds a run of 16+ letters and digits that a generator made: upper and lower
    case, changing between digits, capitals and small letters at 0.35 of its characters or more
    (random base62: 0.62). Slugs have no such run ("assessment-2024-q3"), a name in CamelCase
    changes less often ("RefactorTheParser2024Module": 0.27)."""
    for run in _RUN.findall(value):
        changes = sum(_char_class(a) != _char_class(b) for a, b in zip(run, run[1:]))
        if {1, 2} <= {_char_class(c) for c in run} and changes >= 0.35 * (len(run) - 1):
            return True
    return False


def _openai_body(value: str) -> bool:
    """"sk-" ends English words ("task-", "risk-", "disk-"): glued to one, an OpenAI key must be
    generated, and without "proj-" (or "svcacct-", "admin-") as long as a real one (51 characters)."""
    typed = value.startswith(("sk-proj-", "sk-svcacct-", "sk-admin-"))
    return (typed or len(value) >= 40) and _generated(value)


def _slack_body(value: str) -> bool:
    """A Slack token's prefix is followed by digits ("xoxb-1234…", "xapp-1-…"); "hugsxoxo-see-you"
    is not one."""
    return value[5:6].isdigit()


def _key(glue: str, body: Callable[[str], bool] | None = None, check: _Check | None = None) -> _Check:
    """``check``, and a key glued to the text before it ("token-sk-ant-…", "ui-sk-proj-…", "tAKIA…":
    one of ``glue`` just before, which the shape alone used to refuse) must have a ``body`` that
    only a key has (default: letters and digits). Unglued, the shape alone decides, as it always did."""
    glued = re.compile(f"[{glue}]")
    looks_like_key = body or _mixes_letters_and_digits

    def checked(value: str, m: re.Match[str]) -> bool:
        if check is not None and not check(value, m):
            return False
        start = m.start()
        return start == 0 or not glued.match(m.string, start - 1) or looks_like_key(value)

    return checked


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


def ssn_valid(number: str) -> bool:
    """A US Social Security number as the SSA issues them: area 001-899 but not 666, group 01-99,
    serial 0001-9999 (so "000-12-3456" and "900-12-3456" are other numbers)."""
    digits = "".join(c for c in number if c.isdigit())
    if len(digits) != 9:
        return False
    area, group, serial = int(digits[:3]), int(digits[3:5]), int(digits[5:])
    return 0 < area < 900 and area != 666 and group > 0 and serial > 0


def _ssn(value: str, m: re.Match[str]) -> bool:
    return ssn_valid(value)


# the length of an IBAN in each country that issues them (the SWIFT IBAN registry)
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27, "BR": 29,
    "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
    "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
    "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28,
    "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
    "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25,
    "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27,
    "SO": 23, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}


def iban_valid(text: str) -> bool:
    """An IBAN (spaces allowed): its country's length, and the ISO 7064 MOD 97-10 check that one
    random string in 97 passes; so an upper-case id or a hash rarely is one."""
    code = "".join(text.split()).upper()
    if _IBAN_LENGTHS.get(code[:2]) != len(code) or not code[2:4].isdigit() or not code.isalnum():
        return False
    return int("".join(str(int(c, 36)) for c in code[4:] + code[:4])) % 97 == 1


def _iban(value: str, m: re.Match[str]) -> bool:
    return iban_valid(value)


_PLACEHOLDER_VALUES = frozenset(
    "null none nil true false undefined changeme change_me changeit replace_me replaceme redacted example "
    "xxx todo tbd n/a".split()
)
# the secret's own name, perhaps after "my" / "your" / …, perhaps + "here": a slot to fill, not a secret
_PLACEHOLDER_NAME = re.compile(
    r"(?:(?:my|your|the|some|example|sample|dummy|fake|test|default|placeholder|insert|enter)[-_. ]?){0,2}"
    r"(?:pass(?:word|phrase|code)?|passwd|pwd|secret|token|(?:(?:api|access|secret|private)[-_. ]?)?key|pin)s?"
    r"(?:[-_. ]?here)?",
    re.IGNORECASE,
)
_REFERENCE = re.compile(
    r"[$%{<\[(@*/~]"  # $VAR, ${VAR}, %VAR%, {{ var }}, <your key>, [REDACTED:…], (…), @file, ***, a path
    r"|\.{1,2}/|(?:os|process|env|settings|config|secrets|self|this)\.|[A-Za-z][A-Za-z0-9+.-]{0,30}://",
    re.IGNORECASE,
)
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _placeholder(value: str) -> bool:
    """``changeme``, ``***``, ``your-password``, ``$TOKEN``, ``settings.SECRET``: not a secret."""
    return (value.lower().replace("-", "_") in _PLACEHOLDER_VALUES or set(value) <= set("*xX.•-_#")
            or bool(_PLACEHOLDER_NAME.fullmatch(value)) or bool(_REFERENCE.match(value))
            or bool(_DOTTED_NAME.fullmatch(value)) or bool(_CONSTANT.fullmatch(value)))


def _secret_value(min_len: int) -> _Check:
    """A value after ``key=`` that is a secret, not a reference to one or a placeholder."""

    def check(value: str, m: re.Match[str]) -> bool:
        if len(value) < min_len or _placeholder(value):
            return False
        if value[0] in " \t;:,)]}":  # a closing quote taken for an opening one: `input("Password: ");`
            return False
        return m.string[m.end() : m.end() + 1] not in ("(", "[")  # a call or an index: code, not a literal

    return check


def _phrase_value(value: str, m: re.Match[str]) -> bool:
    """A passphrase of words: a secret as a whole ("your passphrase here" is not) and from its first
    word on, so that code ("args.passphrase or default", "passphrase: str = ''") is no passphrase."""
    secret = _secret_value(4)
    return secret(value, m) and secret(value.split(None, 1)[0], m)


_NAMED = re.compile(r"[A-Za-z]\w{0,30}=")


def _option_value(min_len: int) -> _Check:
    """The value of ``--password VALUE``; ``--secret id=x,src=y`` (docker) names a secret, not gives one."""
    secret = _secret_value(min_len)
    return lambda value, m: not _NAMED.match(value) and secret(value, m)


def _url_password(value: str, m: re.Match[str]) -> bool:
    return not (_REFERENCE.match(value) or set(value) <= set("*xX"))


def _email(value: str, m: re.Match[str]) -> bool:
    return m.group("local").lower() != "git"  # git@github.com:org/repo is a remote, not a person


# -- quantities: a number with a unit is a measurement, not a phone, a card or a PIN ------------------

# case-sensitive, and no word that can follow a phone number in speech: "13812345678 Ms Wang",
# "13812345678 days only" are personal data
_UNIT_EN = (r"ms|msecs?|millis(?:econds?)?|[uµμn]s|s|secs?|seconds?|mins?|minutes?|bytes?|[kKMGTP]i?B|[kmgt]b"
            r"|bits?|[kKMG]bps|tokens?|rows?|records?|items?|entries|events?|files?|requests?|reqs?|queries"
            r"|ops|[qrt]ps|iterations?|steps?|epochs?|samples?|chars?|characters?|digits?|px|%")
_UNIT_ZH = r"毫秒|微秒|纳秒|分钟|小时|字节|字符|位数|条记录|行数据|[个位]字符|位数字"
_UNIT_AFTER = re.compile(
    r"[ \t]{0,2}(?:(?:" + _UNIT_EN + r")(?![A-Za-z0-9])|" + _UNIT_ZH +
    r"|[次秒天个条行元位字](?:(?![\u3400-\u9fff])|(?=[的左以])))"  # 次 but not 次日, 个 but not 个人
    r"|[.,]\d"  # a decimal
)
_MEASURE_BEFORE = re.compile(
    r"(?:(?<![A-Za-z])(?:took|takes|taking|elapsed|latency|duration|runtime|size|count|total|length|offset"
    r"|timeout|ttl|sum)|耗时|用时|历时|时长|大小|数量|总数|总计|共计|合计|计数|长度|偏移|超时|共)[ \t]{0,3}"
    r"(?:[:=：][ \t]{0,3})?(?:(?:about|approx\.?|approximately|around|over|under|~|约|大约|将近)[ \t]{0,3})?\Z"
    r"|\d\.\Z",  # the digits after a decimal point: 0.13812345678
    re.IGNORECASE,
)


def _quantity(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` is a measurement: a unit after it, a measuring
    word before it ("took 13812345678 ms", "耗时13812345678"), or the digits of a decimal."""
    return bool(_UNIT_AFTER.match(text, end) or _MEASURE_BEFORE.search(text[max(0, start - 40) : start]))


def _not_quantity(check: _Check | None = None) -> _Check:
    """``check``, and the number is not a measurement ("took 13812345678 ms" has no phone in it)."""

    def checked(value: str, m: re.Match[str]) -> bool:
        return (check is None or check(value, m)) and not _quantity(m.string, *_part(m))

    return checked


# -- prose: "the password is …", "密码是 …" --------------------------------------------------------

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")  # "required", "case-sensitive", "isn't"
_NOT_A_VALUE = frozenset(
    "1password md5 sha1 sha256 sha-256 sha512 sha-512 argon2 argon2id pbkdf2 base64 utf-8 utf8 aes256 aes-256 "
    "2fa oauth2 e.g. i.e. etc.".split()
)
_QUANTITY_VALUE = re.compile(r"\d[\d.,]{0,12}(?:[-~–]\d[\d.,]{0,12})?\+?[ -]?(?:" + _UNIT_EN + "|" + _UNIT_ZH
                             + r"|[次秒天个条行元位字])")  # "3600s", "12-character", "8-16位"


def _prose_value(rule: str) -> _Check:
    """What the value after "the <noun> is" must look like for ``rule`` (see the module docstring)."""

    def check(value: str, m: re.Match[str]) -> bool:
        quoted = m.group("bare") is None
        if rule == "pin":
            shape = value.isascii() and value.isdigit() and 4 <= len(value) <= 8
        elif rule == "key":
            shape = (len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
                     and not any(c.isspace() for c in value))
        else:
            shape = len(value) >= 4 and (quoted or not _WORD.fullmatch(value))
        if not shape:  # the cheap test first: prose is full of "the token is valid"
            return False
        if rule != "pin" and (_placeholder(value) or value.lower() in _NOT_A_VALUE
                              or _QUANTITY_VALUE.fullmatch(value)):
            return False
        return quoted or not (_quantity(m.string, *_part(m)) or m.string[m.end() : m.end() + 1] in ("(", "["))

    return check


_EN_QUALIFIER = r"(?:[ \t]{1,4}(?:for|of|to|on|at|in|this|next|last)(?:[ \t]{1,4}[\w.@/-]{1,40}){1,4}?)?"
_EN_VERB = (r"(?:[ \t]{1,4}(?:(?:is|was|has[ \t]{1,4}been|will[ \t]{1,4}be)"
            r"(?:[ \t]{1,4}(?:now|still|currently))?(?:[ \t]{1,4}(?:set|changed|reset|updated)[ \t]{1,4}to)?"
            r"|(?:set|changed|reset|updated)[ \t]{1,4}to)(?![A-Za-z0-9])[ \t]{0,4}[:：]?|['’]s)[ \t]{0,4}")
_ZH_VERB = (r"[ \t\u3000]{0,4}(?:这周|本周|今天|现在|目前|默认|暂时|仍然|已经|就|还|仍|已|都|也){0,2}"
            r"(?:是|为|改成|改为|设置为|设置成|设为|设成|换成|换为|变成|变为|重置为|更改为|修改为|更新为)了?"
            r"[ \t\u3000]{0,4}[:：]?[ \t\u3000]{0,4}")
_QUOTED = (r"\"(?P<dq>[^\"\n]{1,200})\"|'(?P<sq>[^'\n]{1,200})'|`(?P<bq>[^`\n]{1,200})`"
           r"|[“「『‘](?P<cq>[^”」』’\n]{1,200})[”」』’]")
_STOP = r"\s\"'`“”‘’「」『』,;()\[\]{}<>，。；、！？（）【】《》"  # where a bare value ends
_EN_VALUE = r"(?:" + _QUOTED + r"|(?P<bare>[^" + _STOP + r"]{0,99}[^" + _STOP + r".!?:：]))"
# ASCII only, so 密码是必须的 has no value; spelt out, as with IGNORECASE a range past ASCII also takes
# away "k" and "s" (the Kelvin sign and the long s fold to them)
_ASCII = [chr(c) for c in range(0x21, 0x7F) if chr(c) not in "\"'`,;()[]{}<>"]
_ZH_VALUE = (r"(?:" + _QUOTED + r"|(?P<bare>[" + re.escape("".join(_ASCII)) + r"]{0,99}["
             + re.escape("".join(c for c in _ASCII if c not in ".!?:")) + r"]))")


def _prose(nouns: str, kind: str, rule: str, *, chinese: bool = False, colon: bool = False) -> _Pattern:
    """"the <noun> [for the db] is <value>" (English) or "<noun>是<value>" (Chinese); ``colon``:
    "PIN: 4821" as well, for nouns that have no ``key=value`` pattern."""
    if chinese:
        verb = _ZH_VERB if not colon else r"(?:" + _ZH_VERB + r"|[ \t\u3000]{0,4}[:：=][ \t\u3000]{0,4})"
        regex = r"(?:" + nouns + r")" + verb + _ZH_VALUE
    else:
        verb = _EN_VERB if not colon else r"(?:" + _EN_VERB + r"|[ \t]{0,4}[:=：][ \t]{0,4})"
        regex = r"(?<![A-Za-z0-9_-])(?:" + nouns + r")(?![A-Za-z0-9_-])" + _EN_QUALIFIER + verb + _EN_VALUE
    return _Pattern(kind, "secrets", re.compile(regex, re.IGNORECASE), _prose_value(rule))


# -- the patterns, most specific first -----------------------------------------------------------------

_KV_VALUE = (r"(?:\"(?P<dq>[^\"\n]{1,300})\"|'(?P<sq>[^'\n]{1,300})'|[“「](?P<cq>[^”」\n]{1,300})[”」]"
             r"|(?P<bare>[^\s\"',;()\[\]{}<>，。；、（）【】《》「」“”]{1,300}))")


def _key_value(keys: str, kind: str, min_len: int, cjk: str = "") -> _Pattern:
    """``key = value`` / ``"key": "value"`` / ``key: value`` for keys ending in one of ``keys``, or
    one of the Chinese ``cjk`` keys (which may follow a Latin word: ``WiFi密码：…``)."""
    key = r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_-]){0,4}(?:" + keys + r")(?![A-Za-z0-9_-])"
    regex = re.compile(
        r"(?:" + key + (r"|" + cjk if cjk else "") + r")[\"']?[ \t\u3000]{0,8}[:=：][ \t\u3000]{0,8}"
        + _KV_VALUE,
        re.IGNORECASE,
    )
    return _Pattern(kind, "secrets", regex, _secret_value(min_len))


def _option(keys: str, kind: str, min_len: int) -> _Pattern:
    """``--password VALUE``, ``--db-password "VALUE"`` (with ``=`` it is a ``key=value``)."""
    bare = r"[^\s\"'`,;()\[\]{}<>|"
    regex = re.compile(
        r"(?<![A-Za-z0-9_-])--(?!(?:ask|no|prompt|use|read|require|show|print)-)(?:[A-Za-z0-9]+-){0,3}(?:"
        + keys + r")(?![A-Za-z0-9_-])[ \t]{1,4}(?:\"(?P<dq>[^\"\n]{1,300})\"|'(?P<sq>[^'\n]{1,300})'"
        r"|(?P<bare>" + bare + r"-]" + bare + r"]{0,299}))",  # not "-": the next option
        re.IGNORECASE,
    )
    return _Pattern(kind, "secrets", regex, _option_value(min_len))


_S = "secrets"
_P = "personal"
# a word of a passphrase: it ends where a sentence or a clause does ("… staple. Keep it safe")
_PHRASE_WORD = r"[^\s\"'`,;()\[\]{}<>]{0,63}[^\s\"'`,;()\[\]{}<>.!?:]"
PATTERNS: tuple[_Pattern, ...] = (
    _Pattern("private_key", _S, re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----|\Z)")),
    _Pattern("url_password", _S, re.compile(
        r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/@?#\[\]]{0,128}:(?P<value>[^\s/@?#]{1,256})@"
        r"[A-Za-z0-9.-]"), _url_password),
    _Pattern("jwt", _S, re.compile(
        _NOT_ALNUM_BEFORE + r"eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{0,2000}")),
    _Pattern("anthropic_key", _S, re.compile(r"sk-ant-[A-Za-z0-9_-]{20,300}"), _key("A-Za-z0-9_-", _generated)),
    # (?!sk-): in "task-sk-proj-…" the key starts at its own "sk-", not at the one of "task-"
    _Pattern("openai_key", _S, re.compile(r"sk-(?!sk-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}"),
             _key("A-Za-z0-9_-", _openai_body, _letters_and_digits)),
    _Pattern("github_token", _S, re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
             _key("A-Za-z0-9_")),
    # glued after a small letter or a digit ("tAKIA…"), not a capital: that is inside a longer run of
    # capitals ("…MALAYSIA…"), where the 4 letters and 16 after them are a coincidence
    _Pattern("aws_access_key_id", _S, re.compile(r"(?<![A-Z])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}" + _NOT_ALNUM_AFTER)),
    _Pattern("aws_secret_key", _S, re.compile(
        r"(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?"
        r"(?P<value>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", re.IGNORECASE)),
    _Pattern("slack_token", _S, re.compile(r"(?:xox[abposre]-[A-Za-z0-9-]{10,250}|xapp-[A-Za-z0-9-]{10,250})"),
             _key("A-Za-z0-9_-", _slack_body)),
    _Pattern("google_api_key", _S, re.compile(r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"), _key("A-Za-z0-9_-")),
    _Pattern("stripe_key", _S, re.compile(r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,250}"),
             _key("A-Za-z0-9_", _generated)),  # glued: not "task_test_integrationSuite" in code
    _Pattern("bearer_token", _S, re.compile(
        r"(?<![A-Za-z0-9])[Bb]earer[ \t]{1,8}(?P<value>[A-Za-z0-9._~+/-]{16,4000}=*)"), _has_digit),
    _Pattern("bearer_token", _S, re.compile(
        r"Authorization[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?Basic[ \t]{1,8}(?P<value>[A-Za-z0-9+/]{8,2000}={0,2})",
        re.IGNORECASE)),
    _Pattern("password", _S, re.compile(  # "passphrase: correct horse battery staple": up to 8 words, not one
        r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_-]){0,4}pass[ _-]?phrase(?![A-Za-z0-9_-])[\"']?[ \t]{0,8}[:=：][ \t]{0,8}"
        r"(?:\"(?P<dq>[^\"\n]{1,300})\"|'(?P<sq>[^'\n]{1,300})'|[“「](?P<cq>[^”」\n]{1,300})[”」]"
        r"|(?P<bare>" + _PHRASE_WORD + r"(?:[ \t]" + _PHRASE_WORD + r"){0,7})(?![^\s.!?:,;]))", re.IGNORECASE),
        _phrase_value),
    _key_value(r"password|passwd|pwd", "password", 4, cjk=r"密码|口令"),
    _key_value(r"api[ \t_-]?key|apikey|access[ \t_-]?key|secret[ \t_-]?key|private[ \t_-]?key", "api_key", 8,
               cjk=r"密钥|秘钥"),
    _key_value(r"token|(?:access|auth|refresh|api)[ \t_-]?token", "token", 8, cjk=r"令牌"),
    _key_value(r"secret|client[ \t_-]?secret", "secret", 8),
    _option(r"password|passwd|passphrase|pass", "password", 4),
    _option(r"api-key|apikey|access-key|secret-key", "api_key", 8),
    _option(r"token", "token", 8),
    _option(r"secret", "secret", 8),
    _Pattern("password", _S, re.compile(  # mysql -pVALUE (-p VALUE would be a database name); sshpass -p VALUE
        r"(?<![A-Za-z0-9_-])(?:(?:mysql|mysqldump|mysqladmin|mariadb)[ \t][^\n|;&]{0,200}?[ \t]-p|sshpass[ \t]{1,4}-p"
        r"[ \t]{0,4})(?:\"(?P<dq>[^\"\n]{1,300})\"|'(?P<sq>[^'\n]{1,300})'|(?P<bare>[^\s\"'`;|&<>]{1,300}))"),
        _secret_value(4)),
    _prose(r"pass(?:word|phrase|code)|passwd", "password", "password"),
    _prose(r"(?:api|access|secret|private)[ \t_-]?key", "api_key", "key"),
    _prose(r"(?:(?:api|access|auth|bearer|refresh)[ \t_-]?)?token", "token", "key"),
    _prose(r"(?:client[ \t_-]?)?secret", "secret", "key"),
    _prose(r"pin(?:[ \t]?(?:code|number))?|otp|one[ -]time[ \t]code|verification[ \t]code", "pin", "pin",
           colon=True),
    _prose(r"密码|口令", "password", "password", chinese=True),
    _prose(r"密钥|秘钥", "api_key", "key", chinese=True),
    _prose(r"令牌", "token", "key", chinese=True),
    _prose(r"PIN[ \t]?码|PIN|验证码|动态码", "pin", "pin", chinese=True, colon=True),
    _Pattern("email", _P, re.compile(
        r"(?<![A-Za-z0-9._%+-])(?P<local>[A-Za-z0-9._%+-]{1,64})@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}"
        r"(?![A-Za-z0-9-])"), _email),
    _Pattern("cn_id", _P, re.compile(
        _NOT_ALNUM_BEFORE + r"[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[0-9Xx]"
        + _NOT_ALNUM_AFTER), _not_quantity(_cn_id)),
    _Pattern("iban", _P, re.compile(
        r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?:[ ][A-Z0-9]{4}){2,7}(?:[ ][A-Z0-9]{1,3})?)"
        + _NOT_ALNUM_AFTER), _iban),
    _Pattern("credit_card", _P, re.compile(r"(?<![A-Za-z0-9.-])\d(?:[ -]?\d){12,18}(?![A-Za-z0-9-]|\.\d)"),
             _not_quantity(_card)),
    _Pattern("cn_mobile", _P, re.compile(
        r"(?<![A-Za-z0-9+])(?:(?:\+|00)86[ -]?|\(\+?86\)[ -]?|86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}"
        + _NOT_ALNUM_AFTER), _not_quantity()),
    _Pattern("us_ssn", _P, re.compile(  # "SSN: 078051120", "social security number 078 05 1120"
        r"(?<![A-Za-z0-9])(?:SSN|social[ \t]security(?:[ \t](?:number|no\.?|#))?)(?:[ \t]{1,3}(?:is|was)(?![A-Za-z]))?"
        r"[ \t]{0,3}[:#=：]?[ \t]{0,3}(?P<value>\d{3}([ -]?)\d{2}\2\d{4})(?![A-Za-z0-9-]|[.,]\d)", re.IGNORECASE),
        _ssn),
    _Pattern("us_ssn", _P, re.compile(  # 078-05-1120 alone: dashes, in that grouping, not in a longer run
        r"(?<![A-Za-z0-9_.+/-])\d{3}-\d{2}-\d{4}(?![A-Za-z0-9_-]|[.,/]\d)"), _not_quantity(_ssn)),
    _Pattern("phone", _P, re.compile(
        r"(?<![A-Za-z0-9+])\+[1-9]\d{0,2}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{1,4}){1,4}"
        + _NOT_ALNUM_AFTER), _not_quantity(_phone_digits)),
    _Pattern("phone", _P, re.compile(
        r"(?<![A-Za-z0-9(.-])(?:\(\d{3}\)[ ]?|\d{3}[ .-])\d{3}[ .-]\d{4}(?![A-Za-z0-9]|[.-]\d)"), _not_quantity()),
    _Pattern("phone", _P, re.compile(r"(?<![A-Za-z0-9.-])0\d{2,3}-\d{7,8}(?![A-Za-z0-9]|[.-]\d)"), _not_quantity()),
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
