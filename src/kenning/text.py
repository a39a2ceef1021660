"""Text handling shared by every index: normalisation, segmentation, the language of a text, safe
full-text queries.

Chinese has no spaces, so the lexical index stores *segmented* text: CJK runs are cut into words by
jieba (the Rust port, rjieba, with its bundled dictionary) in search mode, which also emits the
sub-words of long compounds; Latin text is lower-cased into word tokens, identifiers such as
``proxy_read_timeout`` or ``camelCase`` are indexed whole and by their parts, and English words
are stemmed (Snowball) here rather than inside FTS5, so that the terms of a query are exactly the
terms of the index (retrieval looks up their document frequencies). User queries never reach FTS
syntax raw: they are segmented the same way and every term is quoted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from .errors import InvalidInput

MAX_CONTENT_CHARS = 100_000

Language = str  # "zh" (CJK text) or "en" (everything else)

# A passage counts as Chinese when at least this share of its letters is CJK: "部署到 k8s 集群" is
# Chinese, an English note quoting one Chinese name is not.
CJK_SHARE = 0.3

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")
_WORD = re.compile(r"[^\W_]+(?:[_'.-][^\W_]+)*|[^\W\d_]+", re.UNICODE)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SPACES = re.compile(r"\s+")

# Words that carry no evidence for retrieval. Kept short on purpose: negations ("not", "never",
# "不") change meaning and stay in.
STOPWORDS = frozenset(
    """a an the of to in on at for and or is are was were be been being do does did i you he she it
    we they me my your his her its our their what which who whom when where why how that this these
    those with from by as about can could would should will any some there here have has had am
    so if then than into out up just also very too s t 的 了 吗 呢 吧 啊 是 在 和 与 及 也 都 就 还
    把 被 对 这 那 个 之 我 你 他 她 它 们 有 什么 怎么 哪 哪些 哪个 如何 为什么 一个""".split()
)


def normalize(text: str) -> str:
    """Unicode NFKC (full-width to half-width), case-folded, whitespace collapsed."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def content_key(text: str) -> str:
    """Key under which two texts count as 'the same content' (dedup): normalised, outer punctuation off."""
    return normalize(text).strip(" .。!！?？;；,，")


def clean_content(text: object, what: str = "content", limit: int = MAX_CONTENT_CHARS) -> str:
    """Validate text to be stored: a non-empty string without NUL bytes, at most ``limit`` chars."""
    if not isinstance(text, str):
        raise InvalidInput(f"{what} must be text, got {type(text).__name__}")
    if "\x00" in text:
        raise InvalidInput(f"{what} contains a NUL byte; remove it (binary data cannot be stored as text)")
    check_unicode(text, what)
    stripped = text.strip()
    if not stripped:
        raise InvalidInput(f"{what} is empty; give the text to store")
    if len(stripped) > limit:
        raise InvalidInput(
            f"{what} is {len(stripped):,} characters; the limit is {limit:,}. "
            "Store a summary and keep the full text in a file or a skill reference"
        )
    return stripped


def check_unicode(text: str, what: str) -> str:
    """``text``, or InvalidInput when it holds a lone surrogate (what Python makes of bytes that are
    not UTF-8, such as ``kenning remember $'\\xff'``): it cannot be written to a file or the database."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{what} holds a character that is not valid Unicode (at position {exc.start}: bytes "
                           "that were not UTF-8?); write it again as UTF-8 text") from None
    return text


def holds(text: str, needles: Sequence[str]) -> bool:
    """Whether ``text`` contains one of ``needles``, in any case and spacing (what a purge removes)."""
    folded = " ".join(text.casefold().split())
    return any(" ".join(n.casefold().split()) in folded for n in needles if n.strip())


def has_cjk(text: str) -> bool:
    return _CJK_RUN.search(text) is not None


def cjk_ratio(text: str) -> float:
    """Share of the letters in ``text`` that are CJK (0 for pure English, ~1 for pure Chinese)."""
    cjk = sum(len(m) for m in _CJK_RUN.findall(text))
    letters = sum(1 for ch in text if ch.isalnum())
    return cjk / letters if letters else 0.0


def language(text: str) -> Language:
    """"zh" for text that is mostly CJK, else "en" (judged on its first 2,000 characters)."""
    return "zh" if cjk_ratio(text[:2000]) >= CJK_SHARE else "en"


@lru_cache(maxsize=1)
def _jieba():  # type: ignore[no-untyped-def]
    import rjieba  # imported lazily: ~0.2 s, only needed once text is indexed or searched

    return rjieba


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def stem(token: str) -> str:
    """The index form of a token: English words stemmed, everything else unchanged."""
    if token.isascii() and token.isalpha() and len(token) > 3:
        return str(_stemmer().stemWord(token))
    return token


def _strip_accents(word: str) -> str:
    if word.isascii():
        return word
    return "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))


def _latin_tokens(chunk: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(chunk):
        plain = _strip_accents(word)
        out.append(plain.lower())
        parts = re.split(r"[_'.-]", plain)
        subparts = [p for part in parts for p in _CAMEL.findall(part)] if len(plain) > 1 else []
        if len(subparts) > 1:
            out.extend(p.lower() for p in subparts)
    return out


def tokens(text: str) -> list[str]:
    """Search tokens of ``text``: jieba words (search mode) for CJK, word tokens for the rest."""
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    pos = 0
    for m in _CJK_RUN.finditer(text):
        out.extend(_latin_tokens(text[pos : m.start()]))
        out.extend(w for w in _jieba().cut_for_search(m.group()) if w.strip())
        pos = m.end()
    out.extend(_latin_tokens(text[pos:]))
    return out


_SENTENCE_END = re.compile(r"[.!?:;]\s*$")


def neutral_terms(text: str) -> set[str]:
    """Index terms of the words of ``text`` that read the same in any language: numbers and codes,
    names (a capital inside an English sentence, camel case, capitals only), and any Latin word of
    a text that holds Chinese.

    Text in one language holds such words of the other as names and numbers, but also as glosses
    ("私立学校（private school）"): an English question sharing "school" with a Chinese passage says
    little, sharing "Tesla" or "1754" says much (XQuAD en->zh: 26 of the 43 questions where word
    evidence changed dense's first answer lost it, most to a gloss).
    """
    text = unicodedata.normalize("NFKC", text)
    holds_cjk = bool(_CJK_RUN.search(text))
    out: set[str] = set()
    for chunk in _CJK_RUN.split(text):
        last_end: int | None = None
        for m in _WORD.finditer(chunk):
            word = m.group()
            starts_sentence = last_end is None or bool(_SENTENCE_END.search(chunk[last_end:m.start()]))
            last_end = m.end()
            named = any(c.isupper() for c in word[1:]) or (word[0].isupper() and not starts_sentence)
            if holds_cjk or named or any(c.isdigit() for c in word):
                out.update(stem(t) for t in _latin_tokens(word))
    return out


def segment(text: str) -> str:
    """The text as the lexical index stores it: index terms joined by spaces."""
    return " ".join(stem(t) for t in tokens(text))


def query_words(query: str) -> dict[str, str]:
    """The distinct index terms of a query (stopwords dropped unless nothing else is left), each
    mapped to the word of the query it came from, for showing people why something matched."""
    toks = list(dict.fromkeys(t.lower() for t in tokens(query)))
    kept = [t for t in toks if t not in STOPWORDS] or toks
    out: dict[str, str] = {}
    for word in kept:
        out.setdefault(stem(word), word)
    return out


def query_terms(query: str) -> list[str]:
    """The distinct index terms of a query, as the lexical index spells them."""
    return list(query_words(query))


def fts_match_expression(terms: list[str]) -> str | None:
    """An FTS5 MATCH expression that ORs the quoted terms; None when there is nothing to match.

    Every term is wrapped in double quotes (inner quotes doubled), so operators such as OR, NEAR(,
    ``*`` or ``col:`` in user input are plain text.
    """
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms if t.strip()]
    return " OR ".join(quoted) if quoted else None
