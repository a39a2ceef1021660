"""Novelty: is a statement new, a restatement of a stored fact, or a correction of one?

``relation(old, new, cosine)`` compares two statements; ``find(store, scope, text, vector)`` looks
for the stored, current, unexpired fact a new statement relates to. Both are deterministic.

Cosine alone cannot decide. Measured with the default embedder (multilingual-e5-small, passage
vectors) on 23 pairs of restatements, 11 corrections, 50 different statements and 6 role swaps,
English and Chinese:

* restatements 0.939-0.998 ("Deploys run from …" / "Deployments run from …" 0.996);
* different statements overlap them completely: one changed word scores 0.95-0.98 ("Alice reviews
  backend PRs" / "… frontend PRs" 0.982, "部署在上海机房" / "部署在北京机房" 0.983, "one fact" /
  "another fact" 0.959), and swapped roles score 0.995-0.999 ("Alice reports to Bob" / "Bob
  reports to Alice" 0.995);
* corrections 0.920-0.993; unrelated statements of one store 0.79-0.86.

So the rules are lexical, with the cosine as a floor (texts are compared as tokens: NFKC,
case-folded, English stemmed, "n't" read as "not", each CJK character one token, a token with a
digit one *value*: ``3.11``, ``9:30``, ``db-1``, ``api.example.com/v1``):

**near duplicate** (reinforce the stored fact): cosine >= ``NEAR_DUPLICATE`` (0.95) and the same
content words in the same order, once function words are dropped (a, the, is, are, do, get, our,
this, 的, 了, …). Catches "Deploys run from GitHub Actions" / "Deployments run from GitHub
Actions" and "The database is PostgreSQL 15" / "Our database is PostgreSQL 15"; never merges a
changed word, a changed value, a negation or a role swap. Paraphrases with other words
("prefers" / "likes") are stored as two facts: a duplicate costs little, a lost statement a lot.

**contradiction** (supersede the stored fact, history kept): cosine >= the pair's floor and,
ignoring function-word differences, the texts differ in exactly one place, which is either

* a value for a value, after a linking word ("is", "uses", "takes", "defaults", "belongs",
  "是", "在", "用", "为", …) that is not the first word: "Standup is at 9:00" → "… 9:30", "we use Python 3.11"
  → "… 3.12", "站会在9点" → "站会在10点"; or
* a negation added or removed (not, never, no, 不, 没, 未, 别, 无, with do/does/is/can, 要, 会, …
  around it): "The API supports pagination" → "The API does not support pagination",
  "服务器支持IPv6" → "服务器不支持IPv6".

Limits: a changed word is not a contradiction ("Alice prefers tea" → "… coffee": both are kept,
supersede by hand or let consolidation decide); nor are two changed values ("port 8000 belongs to
team 0" / "port 8001 belongs to team 1"), nor a value before any linking word, which names the
subject ("server 1 is down" / "server 2 is down", "the server at 10.0.0.1 is down"). A number that
names something after a linking word is taken for a value ("the DB is on host 1" → "… host 2"
supersedes; so does "打印机在3楼" → "打印机在4楼"), and numbers written in words ("three") are
words.

**The floor by language.** The cosine floor depends on the languages of the pair. Unrelated short
statements (``bench/novelty_null.py``, ~1.1 million pairs each, passage vectors) score 0.795 (sd
0.029) in English (LoCoMo observations of different conversations), 0.864 (sd 0.029) in Chinese
(MemDaily messages of different users) and 0.715 (sd 0.020) across the two. At one raw floor of
0.85, 3.3% of unrelated English pairs but 66% of unrelated Chinese ones reached the rules (and the
model's update step), and no correction across languages did (0.77-0.84, nine written pairs); a raw
floor high enough for Chinese (0.919) would have kept 21 of the 100 English corrections of
bench/data/current out (0.879-0.918). So ``SAME_SUBJECT`` is the floor of two English statements,
and every pair of languages gets the cosine as many null standard deviations (1.9) above its own
null mean: ``same_subject_floor``, 0.85 English, 0.919 Chinese, 0.754 across; 3.3% of unrelated
Chinese pairs reach it, every correction of bench/data/current does (Chinese 0.939-0.996). The
near-duplicate floor stays one number: its rule asks for the same content words, which unrelated
pairs never have. A configured model is shown the facts at either floor, whichever is lower (``find``).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ..store import ItemQuery, Store
from ..text import content_key, stem
from ..timeutil import to_epoch, utcnow

NEAR_DUPLICATE = 0.95
SAME_SUBJECT = 0.85  # the floor of two English statements; other pairs: ``same_subject_floor``
CANDIDATES = 16  # nearest stored facts examined per statement
# statements longer than this are not diffed word by word (a 60,000-character fact cost minutes a
# comparison); a statement that long is a document, stored beside the other, never superseding it
MAX_COMPARED_TOKENS = 400

Language = str  # "zh" or "en" (see ``language``)

# (language, language) -> (mean, sd) of the cosine of the passage vectors of two unrelated short
# statements (``bench/novelty_null.py``: LoCoMo observations of different conversations, MemDaily
# messages of different users, and the two against each other)
PASSAGE_NULL: dict[tuple[Language, Language], tuple[float, float]] = {
    ("en", "en"): (0.7946, 0.0292),
    ("zh", "zh"): (0.8640, 0.0290),
    ("en", "zh"): (0.7152, 0.0204),
    ("zh", "en"): (0.7152, 0.0204),
}
# a statement is Chinese when CJK characters are at least half its words
CJK_SHARE = 0.5

_CONTRACTIONS = ((re.compile(r"\bcan'?t\b|\bcannot\b"), "can not"), (re.compile(r"\bwon'?t\b"), "will not"),
                 (re.compile(r"n't\b"), " not"))
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
# a run of letters, digits and the punctuation inside names and values; a run with a digit is one
# value token, any other is split into words (matched as runs first: a lookahead for a digit
# would make a long run of letters cost quadratic time)
_TOKEN = re.compile(rf"(?P<run>(?:[^\W{_CJK}]|[.:/@+%#-])+)|(?P<cjk>[{_CJK}])|(?P<link>[=])")
_WORD = re.compile(r"[^\W\d_]+|:")
_CJK_CHAR = re.compile(rf"[{_CJK}]")
_LATIN_WORD = re.compile(rf"[^\W\d_{_CJK}]+")
# a host name, a path or an address ("staging.example.com", "docs/api"): one value, never stemmed
_IDENTIFIER = re.compile(r"[^\W\d_][./@][^\W\d_]")

# dropped before comparing content: they change no fact ("The DB" / "Our DB", "is" / "gets")
FUNCTION = frozenset("""a an the is are was were be been being am do does did get gets got our my your their its
    we us this that these those very really just also too please s 的 了 吗 呢 吧 啊 呀 嘛 哦""".split())
NEGATION = frozenset("not no never none nobody nothing neither nor without 不 没 未 别 无 非 勿 莫 甭".split())
# may stand next to a negation without changing the statement otherwise ("does not", "不会", "没有")
_AROUND_NEGATION = frozenset("""do does did is are was were be can could will would should may might must has
    have had always ever 会 能 要 是 有 可 以 再 也 还 够 曾 必 须 总 是""".split())
# after one of these, a value is what the subject *is* ("is 9:30", "uses 3.12"), not its name
# (prepositions are left out: "the server at 10.0.0.1" names a server)
LINKING = frozenset("""is are was were be am : = ： uses use using used takes take took needs need requires
    require required defaults default set runs run costs cost equals equal lives live moved became become
    becomes called named belongs belong owns own owned listens listen points point starts start opens open
    closes close expires expire 是 为 在 用 到 成 设 改 要 需 等 于 约""".split())


def language(text: str) -> Language:
    """"zh" when CJK characters are at least ``CJK_SHARE`` of the words of ``text`` (each CJK
    character one word, each run of other letters one), else "en". Counted in words, not letters:
    a Chinese statement naming a tool ("小张会Kubernetes") is Chinese, an English one quoting a
    Chinese name ("the user's name is 张伟") is English."""
    folded = unicodedata.normalize("NFKC", text[:2000])
    cjk = len(_CJK_CHAR.findall(folded))
    words = len(_LATIN_WORD.findall(folded))
    return "zh" if cjk and cjk >= CJK_SHARE * (cjk + words) else "en"


def same_subject_floor(a: Language, b: Language, same_subject: float = SAME_SUBJECT) -> float:
    """The cosine floor of a correction between statements in languages ``a`` and ``b``:
    ``same_subject`` is the floor of two English statements, and every pair of languages gets the
    cosine as many null standard deviations above its own null mean (``PASSAGE_NULL``). A floor of
    0 or less (no floor) or 1 or more (never) is the same in every language."""
    if same_subject <= 0 or same_subject >= 1:
        return same_subject
    mean, sd = PASSAGE_NULL[("en", "en")]
    z = (same_subject - mean) / sd
    mean, sd = PASSAGE_NULL[(a, b)]
    return round(mean + z * sd, 4)


def tokens(text: str) -> list[str]:
    """The comparison tokens of ``text`` (see the module docstring)."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")
    for pattern, repl in _CONTRACTIONS:
        folded = pattern.sub(repl, folded)
    out = []
    for m in _TOKEN.finditer(folded):
        run = m.group("run")
        if run is None:
            out.append(m.group())
        elif any(c.isdigit() for c in run) or _IDENTIFIER.search(run.rstrip(".:/-#")):
            out.append(run.rstrip(".:/-#"))
        else:
            for word in _WORD.findall(run):
                special = word in FUNCTION or word in NEGATION or word in _AROUND_NEGATION
                out.append(word if special else stem(word))
    return out


@lru_cache(maxsize=1)
def _linking_stems() -> frozenset[str]:
    return frozenset(stem(w) for w in LINKING)


def _is_value(token: str) -> bool:
    return any(c.isdigit() for c in token)


def content_words(toks: list[str]) -> list[str]:
    return [t for t in toks if t not in FUNCTION and t not in ":=："]


def _slots(a: list[str], b: list[str]) -> list[tuple[int, list[str], list[str]]]:
    """The places where ``a`` and ``b`` differ other than in function words: (start in ``b``,
    tokens of ``a``, tokens of ``b``)."""
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        old, new = a[i1:i2], b[j1:j2]
        if all(t in FUNCTION for t in old + new):
            continue
        out.append((j1, old, new))
    return out


def _negation_flip(old: list[str], new: list[str]) -> bool:
    allowed = NEGATION | _AROUND_NEGATION | FUNCTION
    if not all(t in allowed for t in old + new):
        return False
    return sum(t in NEGATION for t in old) % 2 != sum(t in NEGATION for t in new) % 2


def _value_change(prefix: list[str], old: list[str], new: list[str]) -> bool:
    """One value for another, after a linking word that is not the first word ("在3楼的打印机" names a
    printer; "打印机在3楼" says where it is)."""
    if not old or not new or not all(_is_value(t) for t in old + new):
        return False
    return any(k > 0 and (t in LINKING or t in _linking_stems()) for k, t in enumerate(prefix))


def relation(old: str, new: str, cosine: float, *, near_duplicate: float = NEAR_DUPLICATE,
             same_subject: float = SAME_SUBJECT) -> tuple[str, str]:
    """How ``new`` relates to the stored ``old`` given the cosine of their passage vectors:
    ("duplicate" | "near_duplicate" | "contradiction" | "new", why). ``same_subject`` is the floor
    of two English statements (``same_subject_floor`` gives the pair's)."""
    if content_key(old) == content_key(new):
        return "duplicate", "the same text"
    a, b = tokens(old), tokens(new)
    if cosine >= near_duplicate and content_words(a) == content_words(b):
        return "near_duplicate", f"the same statement in other function words (cosine {cosine:.3f})"
    if cosine < same_subject_floor(language(old), language(new), same_subject):
        return "new", f"another subject (cosine {cosine:.3f})"
    if max(len(a), len(b)) > MAX_COMPARED_TOKENS:  # the word-by-word diff costs quadratic time
        return "new", f"too long to compare word by word ({max(len(a), len(b)):,} tokens; cosine {cosine:.3f})"
    slots = _slots(a, b)
    if len(slots) == 1:
        start, was, now = slots[0]
        if _negation_flip(was, now):
            return "contradiction", f"the same statement negated (cosine {cosine:.3f})"
        if _value_change(b[:start], was, now):
            changed = f"{' '.join(was)} → {' '.join(now)}"
            return "contradiction", f"the same statement with another value: {changed} (cosine {cosine:.3f})"
    return "new", f"a different statement (cosine {cosine:.3f})"


@dataclass(frozen=True)
class Suspect:
    """A current fact that a new statement may contradict (``kenning.gate.current`` could not tell):
    both are kept, and the pair is listed as a possible conflict. ``rule`` says why in words that
    quote neither text (it is stored, and a purge must not have to look for it)."""

    target_id: str
    rule: str
    cosine: float


@dataclass(frozen=True)
class Novelty:
    """What ``find`` decided about a statement, and the stored fact it relates to; ``nearest``: the
    current facts at ``same_subject`` or closer, nearest first (id, content, cosine), which a model
    is asked about; ``suspects``: possible conflicts (when the statement is stored as new)."""

    kind: str  # "new" | "duplicate" | "near_duplicate" | "contradiction"
    reason: str
    target_id: str | None = None
    target_content: str | None = None
    cosine: float | None = None
    nearest: tuple[tuple[str, str, float], ...] = ()
    suspects: tuple[Suspect, ...] = ()
    by: str = "rule"  # "rule" | "model": who decided


def find(store: Store, scope: str, text: str, vector: np.ndarray, *, near_duplicate: float = NEAR_DUPLICATE,
         same_subject: float = SAME_SUBJECT) -> Novelty:
    """Compare ``text`` (with its passage vector) with the current, unexpired facts of ``scope``:
    the same text first, then the nearest by meaning; a near duplicate wins over a contradiction
    (``relation``, then ``kenning.gate.current.judge``, each at the floor of the pair's languages,
    ``same_subject_floor``), and what the rule cannot tell is kept as a suspect. ``nearest`` (what a
    model is asked about) holds the facts at ``same_subject`` or the pair's floor, whichever is
    lower."""
    from .current import judge  # current builds on this module

    same = store.find_current(scope, "fact", content_key(text))
    if same is not None:
        return Novelty("duplicate", "the same text is stored", same["id"], same["content"], 1.0)
    mine = language(text)
    # the model is shown what either floor lets through: it reads meaning, and at the Chinese floor
    # alone 3 of 110 held-out Chinese corrections (0.900-0.918) would not reach it; the rules apply
    # the pair's floor themselves
    floors = [same_subject_floor(mine, other, same_subject) for other in ("en", "zh")]
    lowest = min(near_duplicate, same_subject, *floors)
    near = [(rowid, cos) for rowid, cos in store.fresh_vectors().search(vector, scope, ["fact"], CANDIDATES)
            if cos >= lowest]
    if not near:
        return Novelty("new", "nothing alike is stored")
    cosine = dict(near)
    rows = store.select(ItemQuery(rowids=tuple(cosine), kinds=("fact",), superseded=False, live_at=to_epoch(utcnow()),
                                  columns=("id", "content")))
    found: dict[str, Novelty] = {}
    nearest: list[tuple[str, str, float]] = []
    suspects: list[Suspect] = []
    for row in sorted(rows, key=lambda r: -cosine[int(r["rowid"])]):
        cos = cosine[int(row["rowid"])]
        if cos < min(near_duplicate, same_subject, same_subject_floor(language(row["content"]), mine, same_subject)):
            continue  # near enough for a statement in the other language, not for one in this
        nearest.append((row["id"], row["content"], cos))
        kind, why = relation(row["content"], text, cos, near_duplicate=near_duplicate, same_subject=same_subject)
        if kind in ("new", "contradiction"):  # judge reads relation's value changes too, and may list them
            verdict = judge(row["content"], text, cos, same_subject=same_subject)
            if verdict.verdict == "supersede":
                kind, why = "contradiction", (why if kind == "contradiction" else verdict.reason)
            else:
                kind = "new"
                if verdict.verdict == "conflict" and not suspects:
                    # only the nearest: a statement may correct the fact most like it, and a series
                    # ("release 1.2 shipped", "release 1.3 shipped", …) must not pair every one with every one
                    suspects.append(Suspect(row["id"], verdict.rule, cos))
        if kind != "new" and kind not in found:
            found[kind] = Novelty(kind, why, row["id"], row["content"], cos)
    extra = {"nearest": tuple(nearest), "suspects": tuple(suspects)}
    for kind in ("duplicate", "near_duplicate", "contradiction"):
        if kind in found:
            return replace(found[kind], **extra)  # type: ignore[arg-type]
    why = f"kept beside {len(suspects)} possible conflict(s)" if suspects else "nothing stored says the same or its opposite"
    return Novelty("new", why, **extra)  # type: ignore[arg-type]
