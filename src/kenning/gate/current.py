"""What is current: does a new statement correct a stored one, may both be true, or is it unclear?

``judge(old, new, cosine)`` answers "supersede", "conflict" (kept side by side and listed as a
possible conflict, for a person or the agent to settle) or "separate" (both true). It runs after
``novelty.relation`` has found no restatement, and agrees with it: what ``relation`` calls a
contradiction (a value for a value after a linking word, a negation added or removed) supersedes.

The rule, without a model. Only single-valued attributes are superseded: a thing is in one place,
happens at one time, has one count, one version, one owner, one preferred choice between
alternatives; whereas most verbs take many objects ("Alice reviews backend PRs" and "… frontend
PRs", "Bob speaks French" and "… German"). So, on the tokens of ``novelty.tokens`` (stemmed,
each CJK character one token), with the cosine at least ``SAME_SUBJECT`` (0.85):

1. **No longer.** One statement is negated or says something stopped ("not", "no longer",
   "stopped", "不再", "不", "没有" …), the other is not, and the negated one, with the negation taken
   out, says no more than the other (its content words appear in it in order): "we no longer use
   Jenkins" supersedes "we use Jenkins for CI". When it is the positive one that says less ("we
   don't use Jenkins for CI" / "we use Jenkins"), the pair is a conflict.
2. **One changed place.** Otherwise the texts must differ, ignoring function words, in exactly one
   place, a phrase for a phrase, after the same subject. What comes before that place decides the
   *frame*, the first predicate word in it (not the first word: that is the subject):

   ========== =========================================== ====================================
   frame      words                                       supersedes when the changed phrase is
   ========== =========================================== ====================================
   copula     is, are, was, 是, 为, 叫, 在 (and moved to,    a typed value (below); an untyped
              located in, lives in, 搬到, 位于 …)           word is a conflict
   attribute  starts, opens, closes, lasts, takes, costs,  a typed value; else a conflict
              happens, meets, expires, rotates, kept …
   owner      … by (owned by, maintained by, led by), 由   anything
   preference prefers, wants, favourite, 更喜欢, 偏好, 希望, anything
              习惯; likes / 喜欢 / 爱 only when the same
              head noun follows ("short answers" /
              "detailed answers")
   use        use, uses, 用, 使用, 采用                       a name followed by the same purpose
                                                          ("Jenkins for CI" / "GitHub Actions
                                                          for CI"); without one, a conflict
   other verb any other word                              never; a typed value is a conflict
   ========== =========================================== ====================================

   A *typed* value is one whose kind both sides share and that can be recognised without
   understanding: a number or anything with a digit (also Chinese numerals and English number
   words), a time word (weekdays, months, daily / weekly / monthly …, morning / evening, 每天 / 每周 /
   上午 …), a proper name (a capitalised word that is not the first; Latin words inside Chinese),
   or a state of one closed set (open / closed, public / private, optional / mandatory, on / off,
   enabled / disabled, green / red, 公开 / 私有, 可选 / 必须 …).
   In Chinese, where a time comes before the verb ("合同三月到期"), a typed value after a subject of
   two or more characters supersedes whatever follows; a place after 在 supersedes only at the end
   of the statement ("办公室在柏林"), and with more after it ("部署在上海机房") is a conflict.
3. A changed subject ("server 1 is down" / "server 2 …") is separate, except a name before "is the
   …" ("Tom is the release manager" → "Lena is …"), which supersedes.

Everything else is separate. The word sets are closed classes (function words, time words, a few
verbs per frame), not a lexicon of meaning; ``bench/current.py`` measures what they reach on pairs
written for it (bench/data/current), and the rule is conservative on purpose: a missed correction
leaves two facts side by side (often listed as a conflict), a wrong supersession hides a true one.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..text import stem
from .novelty import FUNCTION, NEGATION, SAME_SUBJECT, _AROUND_NEGATION, _slots, relation, tokens

VERDICTS = ("supersede", "conflict", "separate")


@dataclass(frozen=True)
class Judgement:
    """The rule's answer for one pair: ``verdict`` in ``VERDICTS`` and why, in a few words."""

    verdict: str
    reason: str  # may quote the changed words
    rule: str = ""  # the rule that decided, quoting neither text (what a stored conflict keeps)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- closed classes (stemmed where English) -----------------------------------------------------------

_TIME_EN = _words("""monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
    thursdays fridays saturdays sundays weekday weekdays weekend weekends january february march april may
    june july august september october november december daily weekly monthly quarterly yearly annually
    annual hourly biweekly fortnightly nightly morning afternoon evening night noon midnight today tomorrow
    week month year quarter day hour minute second spring summer autumn fall winter""")
_NUMBER_EN = _words("""zero one two three four five six seven eight nine ten eleven twelve twenty thirty
    hundred thousand once twice half single double first second third fourth fifth sixth seventh eighth
    ninth tenth""")
_STATE_EN = [_words(s) for s in ("open closed close", "public private internal", "optional mandatory required",
                                 "on off", "enabled disabled", "allowed forbidden banned", "green red yellow",
                                 "up down", "active inactive", "blue green red yellow orange purple black white grey gray",
                                 "dark light", "short long brief detailed concise verbose")]
_TIME_ZH = "一二三四五六七八九十百千万两半零〇周星期月日号年天点分秒季度每"  # 上/中/早 … are words too
_NUMBER_ZH = "一二三四五六七八九十百千万两半零〇几"
_STATE_ZH = ["开关", "公开私有", "可选必须", "红橙黄绿青蓝紫黑白灰粉棕", "启用禁用", "深浅", "简短详细简洁", "繁简"]

_COPULA_EN = _words("is are was were be am become becomes became")
_ATTR_EN = _words("""start starts begin begins end ends open opens close closes last lasts take takes cost costs
    happen happens meet meets expire expires rotate rotates refresh refreshes kept retained stored hosted
    served held scheduled due target targets listen listens default defaults live lives sit sits
    base located locat moved move relocated cadence""")
_COUNT_EN = _words("has have had need needs require requires contain contains")  # many things, one count
_NAMED_EN = _words("called named")
_OWNER_EN = _words("by")
_PREFER_EN = _words("prefer prefers preferred want wants wanted favourite favorite")
_LIKE_EN = _words("like likes love loves enjoy enjoys")
_USE_EN = _words("use uses using used")

_COPULA_ZH: tuple[str, ...] = ("是", "为", "改为", "改成")  # and 在 right before the change
_NAMED_ZH = ("叫", "名为", "名字是")
_COUNT_ZH = ("需要", "有")
_NOT_COPULA_ZH = ("现在", "正在", "存在", "实在", "所在", "自在", "在于", "还在", "都在")
_OWNER_ZH = ("由", "负责人", "归")
_PREFER_ZH = ("更喜欢", "偏好", "希望", "习惯", "倾向", "最喜欢", "想要")
_LIKE_ZH = ("喜欢", "爱")
_USE_ZH = ("使用", "采用", "用")
_ATTR_ZH = ("开始", "结束", "到期", "保留", "刷新", "轮换", "开门", "关门", "入职", "上线", "持续")

# a statement that says something stopped; with no negation word in it
_CESSATION = _words("stop stopped quit 停止 停用 放弃")
_NEG_EXTRA = _words("longer anymore more again")  # "no longer", "not anymore": part of the negation
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@lru_cache(maxsize=1)
def _stemmed() -> dict[str, frozenset[str]]:
    def s(words: frozenset[str]) -> frozenset[str]:
        return frozenset(stem(w) for w in words) | words

    out = {"time": s(_TIME_EN), "number": s(_NUMBER_EN), "copula": _COPULA_EN, "attr": s(_ATTR_EN),
           "prefer": s(_PREFER_EN), "like": s(_LIKE_EN), "use": s(_USE_EN), "cessation": s(_CESSATION),
           "count": s(_COUNT_EN), "named": s(_NAMED_EN)}
    out.update({f"state:{i}": s(states) for i, states in enumerate(_STATE_EN)})
    return out


def _names(text: str, *, first: bool = False) -> frozenset[str]:
    """The stemmed, folded forms of the proper names in ``text``: capitalised words other than the
    first word of a sentence (with ``first``, that one too), and any Latin word of a text that
    holds Chinese."""
    folded = unicodedata.normalize("NFKC", text)
    cjk = bool(_CJK.search(folded))
    out: set[str] = set()
    for m in re.finditer(r"[A-Za-z][A-Za-z0-9+#.-]*", folded):
        word = m.group()
        before = folded[:m.start()].rstrip()
        opening = not before or before[-1] in ".!?。！？:"
        if cjk or (word[0].isupper() and (first or not opening)) or (word.isupper() and len(word) > 1):
            for part in re.findall(r"[^\W\d_]+", word.casefold()):
                out.add(stem(part))
    return frozenset(out)


# -- value kinds ------------------------------------------------------------------------------------------


def _is_number(t: str) -> bool:
    return any(c.isdigit() for c in t) or t in _stemmed()["number"] or (len(t) == 1 and t in _NUMBER_ZH)


def _is_time(t: str) -> bool:
    return _is_number(t) or t in _stemmed()["time"] or (len(t) == 1 and t in _TIME_ZH)


def _kind(part: list[str], names: frozenset[str]) -> str:
    """"number", "time", "name" or "word" for the changed phrase ``part`` (states: ``_same_state``)."""
    words = [t for t in part if t not in FUNCTION]
    if not words:
        return "word"
    if all(_is_number(t) for t in words):
        return "number"
    if all(_is_time(t) for t in words):
        return "time"
    if all(t in names or _IDENTIFIER.search(t) for t in words):
        return "name"
    return "word"


def _same_state(was: list[str], now: list[str]) -> bool:
    """Both phrases are states of one closed set (open / closed, 公开 / 私有, blue / green)."""
    a, b = [t for t in was if t not in FUNCTION], [t for t in now if t not in FUNCTION]
    if not a or not b:
        return False
    sets = _stemmed()
    for i in range(len(_STATE_EN)):
        if all(t in sets[f"state:{i}"] for t in a + b):
            return True
    return any(all(len(t) == 1 and t in chars for t in a + b) for chars in _STATE_ZH)


def _typed(was: list[str], now: list[str], names: frozenset[str]) -> bool:
    """Both phrases are values of one recognisable kind (a number for a time counts: "at 9" / "at noon")."""
    if _same_state(was, now):
        return True
    a, b = _kind(was, names), _kind(now, names)
    if a == "word" or b == "word":
        return False
    return a == b or {a, b} == {"number", "time"}


# -- frames -------------------------------------------------------------------------------------------------


def _cjk_text(toks: list[str]) -> str:
    return "".join(t for t in toks if len(t) == 1 and _CJK.match(t) is not None)


def _has_zh(text: str, words: tuple[str, ...]) -> bool:
    return any(w in text for w in words)


def _frame(prefix: list[str]) -> str:
    """The frame the changed place stands in: the first predicate of ``prefix`` after its first
    word ("owner", "named", "prefer", "like", "use", "count", "copula", "attr"), "other" when the
    prefix holds a subject and more, "subject" when the change is in the subject itself."""
    sets = _stemmed()
    latin = [t for k, t in enumerate(prefix) if k > 0 and not _CJK.match(t)]
    if any(t in _OWNER_EN for t in latin):
        return "owner"
    for name in ("named", "prefer", "like", "use", "count"):  # these say more than a copula before them
        if any(t in sets[name] for t in latin):
            return name
    for t in latin:
        for name in ("copula", "attr"):
            if t in sets[name]:
                return name
    zh = _cjk_text(prefix)[1:]  # a predicate follows at least one character of subject
    if zh:
        before: tuple[tuple[str, tuple[str, ...]], ...] = (
            ("owner", _OWNER_ZH), ("named", _NAMED_ZH), ("prefer", _PREFER_ZH), ("like", _LIKE_ZH))
        for name, words in before:
            if _has_zh(zh, words):
                return name
        bare = _not_copula(zh)
        if _has_zh(bare, _COPULA_ZH) or bare.endswith("在"):
            return "copula"  # 在 right before the change: "市场部在三楼", not "用户在学游泳"
        after: tuple[tuple[str, tuple[str, ...]], ...] = (
            ("use", _USE_ZH), ("count", _COUNT_ZH), ("attr", _ATTR_ZH))
        for name, words in after:
            if _has_zh(zh, words):
                return name
    if len([t for t in prefix if t not in FUNCTION]) >= 2:
        return "other"
    return "subject"


def _not_copula(text: str) -> str:
    for w in _NOT_COPULA_ZH:
        text = text.replace(w, "")
    return text


# -- negation ---------------------------------------------------------------------------------------------


def _negated(toks: list[str]) -> bool:
    sets = _stemmed()
    flips = sum(t in NEGATION for t in toks) + sum(t in sets["cessation"] for t in toks)
    return flips % 2 == 1


def _claim(toks: list[str]) -> list[str]:
    """The content words with the negation, its helpers and a cessation taken out."""
    sets = _stemmed()
    drop = NEGATION | _AROUND_NEGATION | FUNCTION | _NEG_EXTRA | sets["cessation"] | {"了", "已", "经"}
    return [t for t in toks if t not in drop and t not in ":=："]


def _in_order(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(any(t == u for u in it) for t in short)


def _no_longer(a: list[str], b: list[str]) -> Judgement | None:
    if _negated(a) == _negated(b):
        return None
    neg, pos = (a, b) if _negated(a) else (b, a)
    said, held = _claim(neg), _claim(pos)
    if len(said) < 2 or not held or said[0] != held[0]:  # the same subject first, or nothing is said
        return None
    if said == held or _in_order(said, held):
        return Judgement("supersede", "one says what the other said no longer holds")
    if _in_order(held, said):
        return Judgement("conflict", "one denies a narrower form of what the other says")
    return None


# -- the changed place ----------------------------------------------------------------------------------------

# ways of saying where (or when) a thing is, read as one: "moved to Munich" corrects "is in Berlin"
_WHERE_EN = ((("move", "to"), 2), (("relocat", "to"), 2), (("is", "locat", "in"), 3), (("locat", "in"), 2),
             (("is", "base", "in"), 3), (("is", "in"), 2), (("is", "at"), 2), (("is", "on"), 2),
             (("are", "in"), 2), (("are", "at"), 2), (("are", "on"), 2))
_WHERE_ZH = ("搬到了", "搬到", "迁到了", "迁到", "位于", "改到了", "改到")
_IDENTIFIER = re.compile(r"[^\W\d_][./@][^\W\d_]")  # a host name, a path, an address


def _canonical(toks: list[str]) -> list[str]:
    """``toks`` with the ways of saying where written one way ("is @", "在")."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        for phrase, n in _WHERE_EN:
            if tuple(toks[i:i + n]) == phrase:
                out += ["is", "@"]
                i += n
                break
        else:
            for zh in _WHERE_ZH:
                if "".join(toks[i:i + len(zh)]) == zh:
                    out.append("在")
                    i += len(zh)
                    break
            else:
                out.append(toks[i])
                i += 1
    return out


def _widen(start: int, was: list[str], now: list[str], a: list[str], b: list[str], old: str,
           new: str) -> tuple[int, list[str], list[str]]:
    """The changed place grown to whole words: Chinese characters that jieba joins to it ("杭|州" /
    "苏|州"), and the numbers and time words around a changed number ("十月" / "十一月")."""
    if _typed(was, now, frozenset()):
        return start, was, now  # already a value: "25" / "28" is not grown into "25号发"
    words_a, words_b = _zh_words(old), _zh_words(new)
    end = start + len(now)  # in b
    end_a = start + len(was)  # in a: the prefixes are the same
    while end < len(b) and end_a < len(a) and b[end] == a[end_a] and (
            (was and now and _joined(was[-1], b[end], words_a) and _joined(now[-1], b[end], words_b))
            or (_is_time(b[end]) and all(_is_time(t) for t in was + now))):
        was, now, end, end_a = was + [a[end_a]], now + [b[end]], end + 1, end_a + 1
    while start > 0 and (
            (was and now and _joined(b[start - 1], was[0], words_a) and _joined(b[start - 1], now[0], words_b))
            or (_is_time(b[start - 1]) and all(_is_time(t) for t in was + now))):
        start -= 1
        was, now = [b[start]] + was, [b[start]] + now
    return start, was, now


def _joined(left: str, right: str, words: frozenset[str]) -> bool:
    if not (_CJK.match(left) and _CJK.match(right)):
        return False
    pair = left + right
    return any(pair in w for w in words)


def _zh_words(text: str) -> frozenset[str]:
    from ..text import _jieba

    return frozenset(w for run in _CJK_RUN.findall(unicodedata.normalize("NFKC", text))
                     for w in _jieba().cut(run) if len(w) > 1)


# -- the rule ------------------------------------------------------------------------------------------------


def judge(old: str, new: str, cosine: float, *, same_subject: float = SAME_SUBJECT) -> Judgement:
    """Whether ``new`` supersedes the stored ``old``, may conflict with it, or stands beside it
    (see the module docstring); ``cosine`` is that of their passage vectors."""
    if cosine < same_subject:
        return Judgement("separate", f"another subject (cosine {cosine:.3f})")
    kind, why = relation(old, new, cosine, same_subject=same_subject)
    if kind == "contradiction":
        return Judgement("supersede", why)
    if kind in ("duplicate", "near_duplicate"):
        return Judgement("separate", why)  # a restatement is the caller's business (reinforce)
    flipped = _no_longer(tokens(old), tokens(new))
    if flipped is not None:
        return Judgement(flipped.verdict, f"{flipped.reason} (cosine {cosine:.3f})",
                         f"{flipped.reason} (cosine {cosine:.3f})")
    a, b = _canonical(tokens(old)), _canonical(tokens(new))
    slots = _slots(a, b)
    if len(slots) != 1:
        return Judgement("separate", f"they differ in {len(slots)} places (cosine {cosine:.3f})")
    start, was, now = _widen(*slots[0], a, b, old, new)
    if not [t for t in was if t not in FUNCTION] or not [t for t in now if t not in FUNCTION]:
        return Judgement("separate", f"one adds to the other (cosine {cosine:.3f})")
    first = start == 0  # the subject changed: its first word may be a name too
    names = _names(old, first=first) | _names(new, first=first)
    verdict, frame = _changed(b[:start], b[start + len(now):], was, now, names)
    changed = f"{' '.join(was)} → {' '.join(now)}"
    return Judgement(verdict, f"{frame}: {changed} (cosine {cosine:.3f})", f"{frame} (cosine {cosine:.3f})")


def _changed(prefix: list[str], suffix: list[str], was: list[str], now: list[str],
             names: frozenset[str]) -> tuple[str, str]:
    """The verdict on one changed phrase, and the frame it was read in."""
    frame = _frame(prefix)
    typed = _typed(was, now, names)
    tail = [t for t in suffix if t not in FUNCTION and t not in ".。!！?？,，"]
    chinese = len(_cjk_text(prefix + was + now + suffix)) >= 2
    if frame == "subject":
        if _kind(was, names) == "name" and _kind(now, names) == "name" and suffix[:2] in (["is", "the"],
                                                                                          ["are", "the"]):
            return "supersede", "another holder of one role"
        return "separate", "another subject"
    if frame in ("owner", "named", "prefer"):
        return "supersede", f"another {frame}"
    if frame == "like":
        return ("supersede", "another choice of one thing") if tail else ("separate", "two things liked")
    if frame == "use":
        if _kind(was, names) == "name" and _kind(now, names) == "name" and tail:
            return "supersede", "another tool for one purpose"
        return "conflict", "another tool, purpose unclear"
    if frame == "count":
        if typed and _kind(was, names) in ("number", "time"):
            return "supersede", "another count"
        return "separate", "one more thing it has or needs"
    if frame == "copula":
        if typed and (not chinese or len(tail) <= 1):
            return "supersede", "another value of one attribute"
        if chinese and not tail and _kind(was, names) == _kind(now, names) == "word":
            return "supersede", "another value at the end of the statement"
        return "conflict", "another value, of a kind the rule cannot tell"
    if frame == "attr":
        return ("supersede", "another value of one attribute") if typed else ("conflict", "another value, unclear")
    # "other": a verb that may take many objects
    if typed and chinese and len(_cjk_text(prefix)) >= 2 and _kind(was, names) in ("number", "time"):
        return "supersede", "another time or count of one subject"  # Chinese puts the time before the verb
    if typed:
        return "conflict", "another value after a verb that may take many"
    return "separate", "another object of a verb that may take many"
