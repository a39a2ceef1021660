"""What is current: does a new statement correct a stored one, may both be true, or is it unclear?

``judge(old, new, cosine)`` answers "supersede", "conflict" (kept side by side and listed as a
possible conflict, for a person or the agent to settle) or "separate" (both true). It runs after
``novelty.relation`` has found no restatement, and agrees with it: what ``relation`` calls a
contradiction (a value for a value after a linking word, a negation added or removed) supersedes.

The rule, without a model. Only single-valued attributes are superseded: a thing is in one place,
happens at one time, has one count, one version, one owner, one preferred choice between
alternatives; whereas most verbs take many objects ("Alice reviews backend PRs" and "… frontend
PRs", "Bob speaks French" and "… German"). So, on the tokens of ``novelty.tokens`` (stemmed,
each CJK character one token), with the cosine at least ``SAME_SUBJECT`` (0.85; other languages:
``novelty.same_subject_floor``), and reading the words of change of ``change_words``:

0. **Both hold.** The newer statement adds ("also", "too", "either", "as well", 也, 还, 又, 新增) or
   says the older still holds ("still", 仍然, 还是): separate. **The older value named.** It names
   what the older says as replaced ("from CircleCI to …", "… instead of SendGrid", "Dana, not Sam",
   "replaced Greg with …", 从MySQL迁到…, "…，不是小陈", "不用SendGrid了"), and the two share another
   word: supersede, unless the name stands in the older subject ("the user's iPhone case is blue").
1. **No longer.** One statement is negated or says something stopped ("not", "no longer",
   "stopped", "left", "cancelled", "不再", "不", "没有", 戒, 退了, 离开, 关闭 …; the time of the end,
   "last year", 去年, dropped), the other is not, and the negated one, with the negation taken
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
              习惯; likes / 喜欢 / 爱 only for states of
              one set before the same noun ("short
              answers" / "detailed answers") or a tool
              for one purpose ("喜欢用Tab缩进"), not
              "likes Italian food" / "… Thai food"
   use        use, uses, 用, 使用, 采用                       a name followed by the same purpose
                                                          ("Jenkins for CI" / "GitHub Actions
                                                          for CI"); without one, a conflict
   other verb any other word                              a rate when both say how often ("every
                                                          5 minutes" / "every minute", 每周两次);
                                                          another typed value is a conflict
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
4. **Said as a change.** When the newer statement has words of change the older lacks, an older one
   dated in the past ("as a child", "before 2020", "previous", a year, 去年, 小时候, 前任) is history:
   separate. Otherwise the words are cut out and the rest compared:

   * a time word ("now", "currently", "from now on", "latest", "the user's new …", 现在, 目前, 以后,
     最新; with habit words, "usually", 平时, 都, and the time of the change, "last month", 已经):
     rule 2 on the rest ("The user has three cats now", "用户现在住在杭州"), a name for a name as the
     subject ("Lena maintains the docs site now") and a count of the same noun ("now allows 5
     projects") supersede; what it cannot tell is a conflict;
   * a change verb and its direction ("moved to", "was upgraded to", "bumped to", "scaled the
     cluster to", 改到, 换成, 升级到, 推迟到, 交给): it must stand where the older predicate stood,
     after the same words ("runs on Node 18" / "was upgraded to Node 20"; not "the user's brother
     moved to …"); the older frame then decides as in rule 2, a typed value supersedes, and so does a
     Chinese value of the same kind at the end of both ("团建定在千岛湖" / "团建改到莫干山了"); two parts
     of one time change together ("周二下午两点" / "周四下午三点"); the rest is a conflict.
5. **Done.** The older says a thing is pending ("in progress", "draft", 进行中, 还没修), the newer
   the same thing done ("finished", "approved", 完成, 修复): supersede.
6. **What may have many.** Read in any of the rules above (and over ``novelty.relation``'s own
   value change), these are one of several true values, never a replacement: a copula after a modal
   or helping a predicate of where a thing is spread or offered ("can be exported as PDF", "is
   deployed in us-east-1", "is available in German", 部署在, 发布在 …: a conflict); "by" after
   anything but a verb of holding or running ("owned by", "led by") is a means or a criterion ("pays
   by card", "sorted by date"); a name of one item among several ("has a son named Leo", 有个儿子叫
   乐乐: a conflict); a language or a medium one composes in ("uses Kotlin to write services",
   用Kotlin写服务: a conflict); a value said more precisely ("十二月" / "十二月十八号晚上六点",
   "Friday" / "Friday at 3pm", not "12点" / "12点半": a conflict); a value changed between two denials
   ("doesn't eat mushrooms" / "… shellfish", 周五没空 / 晚上六点以后没空: a conflict). A statement
   is denied when one of its clauses is: a second denial in another clause ("不吃辣，连微辣都不行",
   "doesn't smoke, never did") says the first again, it does not cancel it; and 以后 after a time
   is "after" it, not "from now on".

Everything else is separate. The word sets are closed classes (function words, time words, a few
verbs per frame, the common verbs of change: ``change_words``), not a lexicon of meaning;
``bench/current.py`` measures what they reach on pairs written for it (bench/data/current) and on
two batches first run blind (bench/data/current/heldout and heldout2, tuned on since: rule 6 came
from heldout2's nine false supersessions, each fixed as a kind), and the rule is conservative
on purpose: a missed correction leaves two facts side by side (often listed as a conflict), a wrong
supersession hides a true one.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

from . import change_words as cw
from .novelty import (
    FUNCTION, NEGATION, SAME_SUBJECT, _AROUND_NEGATION, _linking_stems, _negation_flip, _slots, language, relation,
    same_subject_floor, tokens,
)

VERDICTS = ("supersede", "conflict", "separate")
# characters: a fact is a sentence or two, and the comparison costs quadratic time in its words
LONGEST = 2000


@dataclass(frozen=True)
class Judgement:
    """The rule's answer for one pair: ``verdict`` in ``VERDICTS`` and why, in a few words."""

    verdict: str
    reason: str  # may quote the changed words
    rule: str = ""  # the rule that decided, quoting neither text (what a stored conflict keeps)


# -- frames -------------------------------------------------------------------------------------------------


def _cjk_text(toks: list[str]) -> str:
    return "".join(t for t in toks if len(t) == 1 and cw.CJK.match(t) is not None)


def _has_zh(text: str, words: tuple[str, ...]) -> bool:
    return any(w in text for w in words)


def _frame(prefix: list[str]) -> str:
    """The frame the changed place stands in: the first predicate of ``prefix`` after its first
    word ("owner", "named", "prefer", "like", "use", "count", "copula", "attr"; "item" for the name
    of one of several things), "other" when the prefix holds a subject and more, "subject" when the
    change is in the subject itself."""
    sets = cw.stemmed()
    latin = [t for k, t in enumerate(prefix) if k > 0 and not cw.CJK.match(t)]
    if any(t in cw.OWNER_EN and _agent(latin[:k]) for k, t in enumerate(latin)):
        return "owner"
    for name in ("named", "prefer", "like", "use", "count"):  # these say more than a copula before them
        at = next((k for k, t in enumerate(latin) if t in sets[name]), None)
        if at is not None:
            if name == "named" and any(t in sets["indefinite"] for t in latin[max(0, at - 3):at]):
                return "item"  # "has a son named Leo": one of several sons
            return name
    for k, t in enumerate(latin):
        if t in sets["attr"]:
            return "attr"
        if t in sets["copula"]:
            return _helped(latin[:k], latin[k + 1:])
    zh = _cjk_text(prefix)[1:]  # a predicate follows at least one character of subject
    if zh:
        before: tuple[tuple[str, tuple[str, ...]], ...] = (
            ("owner", cw.OWNER_ZH), ("named", cw.NAMED_ZH), ("prefer", cw.PREFER_ZH), ("like", cw.LIKE_ZH))
        for name, words in before:
            if _has_zh(zh, words):
                if name == "named" and cw.ITEM_ZH.search(zh[:min(zh.find(w) for w in words if w in zh)]):
                    return "item"  # "有个儿子叫乐乐": one of several
                return name
        bare = _not_copula(zh)
        if _has_zh(bare, cw.COPULA_ZH) or bare.endswith("在"):
            # 在 right before the change: "市场部在三楼", not "用户在学游泳"; "部署在…": one of many places
            return "other" if _has_zh(bare, cw.SPREAD_ZH) else "copula"
        after: tuple[tuple[str, tuple[str, ...]], ...] = (
            ("use", cw.USE_ZH), ("count", cw.COUNT_ZH), ("attr", cw.ATTR_ZH))
        for name, words in after:
            if _has_zh(zh, words):
                return name
    if len([t for t in prefix if t not in FUNCTION]) >= 2 or prefix[:1] == ["we"] and len(prefix) >= 2:
        return "other"  # "we deploy …": a pronoun is a subject too
    return "subject"


def _agent(before: list[str]) -> bool:
    """"by" names the holder after a verb of holding or running ("is owned by", "was led by");
    after any other word it names a means or a criterion ("accepts payment by card", "sorted by
    date"), and there may be many."""
    return bool(before) and before[-1] in cw.stemmed()["owning"]


def _helped(before: list[str], after: list[str]) -> str:
    """The frame of a copula, with the words ``before`` and ``after`` it up to the change: a copula
    after a modal ("can be exported as") says what is possible, and one that helps a predicate of
    where a thing is spread or offered ("is deployed in", "is available in", "is sold in") says
    one of many places ("other"); any other copula is one ("is written in Java", "is in Berlin")."""
    if before[-1:] and before[-1] in cw.MODAL_EN:
        return "other"
    return "other" if any(t in cw.stemmed()["spread"] for t in after) else "copula"


def _counts(was: list[str], now: list[str], suffix: list[str]) -> bool:
    """Two cardinal numbers right before the same noun ("allows 3 projects" / "now allows 5
    projects", "3个项目"), not an ordinal ("the first run") nor a number before a verb, which names
    the subject ("the printer on floor 2 is broken")."""
    def cardinal(part: list[str]) -> bool:
        words = [t for t in part if t not in FUNCTION]
        return bool(words) and all(t.isdigit() or t in cw.CARDINAL or t in cw.NUMBER_ZH for t in words)

    after = suffix[:1]
    noun = bool(after) and after[0] not in FUNCTION and after[0] not in _linking_stems() and (
        not cw.CJK.match(after[0]) or after[0] in cw.MEASURE_ZH)
    return cardinal(was) and cardinal(now) and noun


def _refines(was: list[str], now: list[str]) -> bool:
    """One changed phrase begins with the whole other and goes on with more than a number ("十二月" /
    "十二月十八号晚上六点", "Friday" / "Friday at 3pm"): a detail added to the same value, both
    may be true ("七月" / "七月底"); "12点" / "12点半" and "hourly" / "every six hours" are other values."""
    a, b = _content(was), _content(now)
    short, long = (a, b) if len(a) < len(b) else (b, a)
    added = long[len(short):]
    return 0 < len(short) < len(long) and long[:len(short)] == short and not all(cw.is_number(t) for t in added)


def _composes(suffix: list[str]) -> bool:
    """What follows a tool is a verb of composing ("to write services", 写服务, 编写文档): the tool
    is a language or a medium, and one makes things in many."""
    words = [t for t in suffix if t not in FUNCTION and t not in cw.PREPOSITIONS]
    if words and not cw.CJK.match(words[0]):
        return words[0] in cw.stemmed()["compose"]
    return any(_cjk_text(suffix).startswith(w) for w in cw.COMPOSE_ZH)


def _uses(prefix: list[str]) -> bool:
    return any(t in cw.stemmed()["use"] for t in prefix) or _has_zh(_cjk_text(prefix), cw.USE_ZH)


def _not_copula(text: str) -> str:
    for w in cw.NOT_COPULA_ZH:
        text = text.replace(w, "")
    return text


# -- negation ---------------------------------------------------------------------------------------------


def _negated(toks: list[str]) -> bool:
    sets = cw.stemmed()
    flips = sum(t in NEGATION for t in toks) + sum(t in sets["cessation"] for t in toks)
    return flips % 2 == 1


# where one clause ends and another begins (not the point of "3.12")
CLAUSE = re.compile(r"[,，;；。!?！？、]|\.(?!\d)")


def _denies(text: str) -> bool:
    """Whether a clause of ``text`` is negated: a second negation in another clause says more of
    the same ("用户不吃辣，连微辣都不行"), it does not cancel the first as it would in one clause."""
    return any(_negated(tokens(part)) for part in CLAUSE.split(text))


def _claim(toks: list[str]) -> list[str]:
    """The content words with the negation, its helpers and a cessation taken out."""
    sets = cw.stemmed()
    drop = NEGATION | _AROUND_NEGATION | FUNCTION | sets["neg_extra"] | sets["cessation"] | {"了", "已", "经"}
    return [t for t in toks if t not in drop and t not in ":=："]


def _in_order(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(any(t == u for u in it) for t in short)


def _no_longer(old: str, new: str) -> Judgement | None:
    """Rule 1 on the statements with a verb that ends what was read as a negation (``cw.ceased``)."""
    old, new = cw.ceased(old), cw.ceased(new)
    if _denies(old) == _denies(new):
        return None
    a, b = tokens(old), tokens(new)
    neg, pos = (a, b) if _denies(old) else (b, a)
    said, held = _claim(neg), _claim(pos)
    if len(said) < 2 or not held or said[0] != held[0]:  # the same subject first, or nothing is said
        return None
    if said == held or _in_order(said, held):
        return Judgement("supersede", "one says what the other said no longer holds")
    if _in_order(held, said):
        return Judgement("conflict", "one denies a narrower form of what the other says")
    return None


# -- the changed place ----------------------------------------------------------------------------------------


def _canonical(toks: list[str]) -> list[str]:
    """``toks`` with the ways of saying where written one way ("is @", "在")."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        for phrase, n in cw.WHERE_EN:
            if tuple(toks[i:i + n]) == phrase:
                out += ["is", "@"]
                i += n
                break
        else:
            for zh in cw.WHERE_ZH:
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
    if cw.typed(was, now, frozenset()):
        return start, was, now  # already a value: "25" / "28" is not grown into "25号发"
    words_a, words_b = _zh_words(old), _zh_words(new)
    end = start + len(now)  # in b
    end_a = start + len(was)  # in a: the prefixes are the same
    while end < len(b) and end_a < len(a) and b[end] == a[end_a] and (
            (was and now and _joined(was[-1], b[end], words_a) and _joined(now[-1], b[end], words_b))
            or (cw.is_time(b[end]) and all(cw.is_time(t) or t in cw.GLUE for t in was + now))):
        was, now, end, end_a = was + [a[end_a]], now + [b[end]], end + 1, end_a + 1
    while start > 0 and (
            (was and now and _joined(b[start - 1], was[0], words_a) and _joined(b[start - 1], now[0], words_b))
            or (cw.is_time(b[start - 1]) and all(cw.is_time(t) or t in cw.GLUE for t in was + now))):
        start -= 1
        was, now = [b[start]] + was, [b[start]] + now
    return start, was, now


def _joined(left: str, right: str, words: frozenset[str]) -> bool:
    if not (cw.CJK.match(left) and cw.CJK.match(right)):
        return False
    pair = left + right
    return any(pair in w for w in words)


def _zh_words(text: str) -> frozenset[str]:
    from ..text import _jieba

    return frozenset(w for run in cw.CJK_RUN.findall(unicodedata.normalize("NFKC", text))
                     for w in _jieba().cut(run) if len(w) > 1)


# -- the rule ------------------------------------------------------------------------------------------------


def judge(old: str, new: str, cosine: float, *, same_subject: float = SAME_SUBJECT) -> Judgement:
    """Whether ``new`` supersedes the stored ``old``, may conflict with it, or stands beside it
    (see the module docstring); ``cosine`` is that of their passage vectors, ``same_subject`` the
    floor of two English statements (``novelty.same_subject_floor`` gives the pair's)."""
    if cosine < same_subject_floor(language(old), language(new), same_subject):
        return Judgement("separate", f"another subject (cosine {cosine:.3f})")
    if max(len(old), len(new)) > LONGEST:
        return Judgement("separate", "too long to be read as one statement")
    kind, why = relation(old, new, cosine, same_subject=same_subject)
    if kind == "contradiction" and "negated" in why and _denies(old) == _denies(new):
        # the flip is a second denial in another clause ("doesn't smoke, never did"): said again
        return Judgement("separate", f"the same denial said again (cosine {cosine:.3f})")
    if kind == "contradiction" and (_one_of_many(old, new) or "another value" in why and _denies(old) and _denies(new)):
        return Judgement("conflict", f"another value of what may have many (cosine {cosine:.3f})",
                         f"another value of what may have many (cosine {cosine:.3f})")
    if kind == "contradiction":
        return Judgement("supersede", why)
    if kind in ("duplicate", "near_duplicate"):
        return Judgement("separate", why)  # a restatement is the caller's business (reinforce)
    both = cw.both_hold(old, new)
    if both:
        return Judgement("separate", f"{both} (cosine {cosine:.3f})", f"{both} (cosine {cosine:.3f})")
    named = _names_replaced(old, new)
    if named:
        return Judgement("supersede", f"{named} (cosine {cosine:.3f})", f"{named} (cosine {cosine:.3f})")
    flipped = _no_longer(old, new)
    if flipped is not None:
        return Judgement(flipped.verdict, f"{flipped.reason} (cosine {cosine:.3f})",
                         f"{flipped.reason} (cosine {cosine:.3f})")
    base = _one_place(old, new, cosine)
    denied = _denies(old) and _denies(new)  # "not on Fridays" / "not after 6pm": two denials may both hold
    if base.verdict == "supersede":
        return _both_denied(base, cosine) if denied else base
    said = _finished(old, new) or _as_change(old, new)
    if said is None:
        return base
    verdict, frame = said
    if verdict == "supersede" and denied:
        return _both_denied(Judgement(verdict, frame), cosine)
    return Judgement(verdict, f"{frame} (cosine {cosine:.3f})", f"{frame} (cosine {cosine:.3f})")


def _one_of_many(old: str, new: str) -> bool:
    """``novelty.relation`` read one value for another after a copula that only helps a predicate
    of many ("is deployed in us-east-1" / "… ap-southeast-2", "can be exported as PDF"), or the
    name of one item among several ("has a son named Leo" / "… Max"): not one value replacing another."""
    a, b = tokens(old), tokens(new)
    slots = _slots(a, b)
    if len(slots) != 1:
        return False
    start, was, now = slots[0]
    if _negation_flip(was, now):
        return False
    frame, prefix = _frame(b[:start]), b[:start]
    helped = any(t in cw.COPULA_EN for t in prefix[1:]) or _has_zh(_cjk_text(prefix), cw.SPREAD_ZH)
    return frame == "item" or frame == "other" and helped


def _both_denied(said: Judgement, cosine: float) -> Judgement:
    """A value changed between two denials ("The user doesn't eat mushrooms" / "… shellfish",
    "用户周五没空" / "用户晚上六点以后没空"): what is not so may be many things; listed, not superseded."""
    return Judgement("conflict", f"another value of a denial: {said.reason}",
                     f"another value of a denial (cosine {cosine:.3f})")


# words that number what follows them: the number names an item, it is not a value of it
NUMBERING = frozenset("第 # no item rule step point section chapter clause article".split())


def _one_place(old: str, new: str, cosine: float) -> Judgement:
    """The rule on statements that differ in one place (module docstring, 2 and 3)."""
    a, b = _canonical(tokens(old)), _canonical(tokens(new))
    slots = _slots(a, b)
    if len(slots) != 1:
        return Judgement("separate", f"they differ in {len(slots)} places (cosine {cosine:.3f})")
    start, was, now = _widen(*slots[0], a, b, old, new)
    if not [t for t in was if t not in FUNCTION] or not [t for t in now if t not in FUNCTION]:
        return Judgement("separate", f"one adds to the other (cosine {cosine:.3f})")
    if b[:start] and b[start - 1] in NUMBERING:  # "第3条约定" / "第4条约定", "rule 5" / "rule 6": two items
        return Judgement("separate", f"another numbered item (cosine {cosine:.3f})")
    first = start == 0  # the subject changed: its first word may be a name too
    names = cw.proper_names(old, first=first) | cw.proper_names(new, first=first)
    verdict, frame = _changed(b[:start], b[start + len(now):], was, now, names, cw.often(old, new))
    changed = f"{' '.join(was)} → {' '.join(now)}"
    return Judgement(verdict, f"{frame}: {changed} (cosine {cosine:.3f})", f"{frame} (cosine {cosine:.3f})")


def _changed(prefix: list[str], suffix: list[str], was: list[str], now: list[str],
             names: frozenset[str], often: bool = False, said: bool = False) -> tuple[str, str]:
    """The verdict on one changed phrase, and the frame it was read in; ``often``: both statements
    say how often (a typed change is then another rate of one activity); ``said``: the newer one
    says that something changed (a count of a thing may then change after any verb)."""
    frame = _frame(prefix)
    if frame != "subject" and _refines(was, now):  # "十二月" / "十二月十八号晚上六点", "Friday" / "Friday at 3pm"
        return "conflict", "one value says the other more precisely"
    typed = cw.typed(was, now, names)
    tail = [t for t in suffix if t not in FUNCTION and t not in ".。!！?？,，"]
    chinese = len(_cjk_text(prefix + was + now + suffix)) >= 2
    if frame == "subject":
        if cw.kind(was, names) == "name" and cw.kind(now, names) == "name" and suffix[:2] in (["is", "the"],
                                                                                          ["are", "the"]):
            return "supersede", "another holder of one role"
        return "separate", "another subject"
    if frame in ("owner", "named", "prefer"):
        return "supersede", f"another {frame}"
    if frame == "item":  # "has a son named Leo" / "… Max": a second son, or a correction
        return "conflict", "another name, perhaps of another of its kind"
    if frame == "like":  # many things are liked at once; a choice between states is one ("short" / "detailed")
        if tail and (cw.same_state(was, now) or _uses(prefix)):  # "likes using tabs / spaces for indenting"
            return "supersede", "another choice of one thing"
        return "separate", "two things liked"
    if frame == "use":
        if _composes(suffix):  # "uses Kotlin to write services", 用Kotlin写服务: one of many languages
            return "conflict", "another medium of what is made, of which there may be many"
        if cw.kind(was, names) == "name" and cw.kind(now, names) == "name" and tail:
            return "supersede", "another tool for one purpose"
        return "conflict", "another tool, purpose unclear"
    if frame == "count":
        if typed and cw.kind(was, names) in ("number", "time"):
            return "supersede", "another count"
        return "separate", "one more thing it has or needs"
    if frame == "copula":
        if typed and (not chinese or len(tail) <= 1 or often):
            return "supersede", "another value of one attribute"
        if chinese and not tail and cw.kind(was, names) == cw.kind(now, names) == "word":
            return "supersede", "another value at the end of the statement"
        return "conflict", "another value, of a kind the rule cannot tell"
    if frame == "attr":
        return ("supersede", "another value of one attribute") if typed else ("conflict", "another value, unclear")
    # "other": a verb that may take many objects
    if typed and chinese and len(_cjk_text(prefix)) >= 2 and cw.kind(was, names) in ("number", "time"):
        return "supersede", "another time or count of one subject"  # Chinese puts the time before the verb
    if typed and often:
        return "supersede", "another frequency of one activity"  # an activity is done at one rate
    if said and _counts(was, now, suffix):
        return "supersede", "another count of one thing"
    if typed:
        return "conflict", "another value after a verb that may take many"
    return "separate", "another object of a verb that may take many"


# -- said as a change (module docstring, 0, 4 and 5; the words: ``change_words``) ----------------------------


def _content(toks: list[str]) -> list[str]:
    return [t for t in toks if t not in FUNCTION and t not in ".。!！?？,，:=："]


def _as_change(old: str, new: str) -> tuple[str, str] | None:
    """The verdict when ``new`` says the change in words of change, or None when it does not."""
    was, now = cw.said(old), cw.said(new)
    signals = now.signals - was.signals
    if not signals:
        return None
    if cw.past(old):
        return "separate", "the older statement is dated in the past"
    a, b = tokens(was.text), tokens(now.text)
    return _changed_place(_canonical(a), _canonical(b), signals, (old, new), (was.text, now.text))


def _names_replaced(old: str, new: str) -> str:
    """Why ``new`` supersedes when it names what ``old`` says as the value it replaces ("switched
    from CircleCI to …", "… instead of SendGrid", "Dana, not Sam", 从MySQL迁到…, 不再用Ansible);
    "" when it does not, or when the older statement is dated or the newer adds to it."""
    now = cw.said(new)
    if not now.replaced or cw.past(old):
        return ""
    a, b = _content(tokens(cw.said(old).text)), _content(tokens(now.text))
    named = [t for t in _content(tokens(now.replaced)) if t not in cw.PREPOSITIONS]
    topic = set(b) & set(a) - set(named)  # the newer statement is about the same thing
    if not named or not set(named) <= set(a) or not topic:
        return ""
    told = tokens(old)
    after = told[max((k for k, t in enumerate(told) if t in named), default=len(told)) + 1:]
    if any(t in cw.COPULA_EN or t in cw.COPULA_ZH for t in after):
        return ""  # the value named is in the older subject ("the user's iPhone case is blue")
    return "names the older value as replaced"


def _opcodes(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """The places where ``a`` and ``b`` differ other than in function words: (i1, i2, j1, j2)."""
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal" and not all(t in FUNCTION for t in a[i1:i2] + b[j1:j2]):
            out.append((i1, i2, j1, j2))
    return out


def _changed_place(a: list[str], b: list[str], signals: frozenset[str], texts: tuple[str, str],
                   cut: tuple[str, str]) -> tuple[str, str] | None:
    """One changed value once the words of change are cut out (``cut``, of the original ``texts``)."""
    if "verb" in signals and cw.MARK in b:
        return _said_by_verb(a, b, cw.proper_names(texts[0]) | cw.proper_names(texts[1]), cw.often(*texts))
    ops = _opcodes(a, b)
    if len(ops) == 2 and _one_time(a, b, ops):
        return "conflict", "another time said now, perhaps of another day"  # "on Sundays at 10am"
    if len(ops) != 1:
        return None
    i1, i2, j1, j2 = ops[0]
    start, was, now = _widen(j1, a[i1:i2], b[j1:j2], a, b, *cut)
    if not _content(was) or not _content(now):
        return None
    names = cw.proper_names(texts[0], first=start == 0) | cw.proper_names(texts[1], first=start == 0)
    often = cw.often(*texts)
    verdict, frame = _changed(b[:start], b[start + len(now):], was, now, names, often, said=True)
    tail = _value_tail(was, now, names)
    if verdict != "supersede" and tail != was:  # "held every two weeks" / "monthly"
        verdict, frame = _changed(b[:start], b[start + len(now):], tail, now, names, often, said=True)
    if verdict == "supersede":
        return "supersede", f"{frame}, said now"
    if start == 0:  # another subject, unless a name for a name ("Lena maintains the docs site now")
        if cw.kind(was, names) == cw.kind(now, names) == "name" and a[i2:] == b[j2:]:
            return "supersede", "another holder, said now"
        return None
    return "conflict", "said now, of a kind the rule cannot tell"


def _said_by_verb(a: list[str], b: list[str], names: frozenset[str], often: bool) -> tuple[str, str] | None:
    """``b`` says with a change verb (at ``cw.MARK``) what ``a`` said with a predicate: the same words
    before it, the older predicate where the verb stands, and one value for another after it
    ("runs on Node 18" / "[upgraded to] Node 20", "定在千岛湖" / "[改到]莫干山"); the older frame
    decides, as in ``_changed``, and a value at the end of a Chinese statement supersedes."""
    ops = _opcodes(a, b)
    mark = b.index(cw.MARK)
    if not ops or not ops[0][2] == mark < ops[0][3]:
        return None  # the words before the verb differ: another subject ("the user's brother moved to …")
    i1, i2, j1, j2 = ops[0]
    rest = ops[1:]
    if j2 > j1 + 1:  # the older predicate and value in one place: "live in lisbon" / "= porto"
        p = _predicate(a[i1:i2], whole=False)
        if p == 0 or rest:
            return None
        k1, k2, l1, l2 = i1 + p, i2, j1 + 1, j2
    else:  # the predicate alone: "run on" / "=", then the value
        if _predicate(a[i1:i2], whole=True) != i2 - i1 or not rest:
            return None
        if len(rest) == 2 and _one_time(a, b, rest):
            return "supersede", "another time, said by a change verb"
        if len(rest) != 1:
            return None
        k1, k2, l1, l2 = rest[0]
    k1, k2, l1, l2 = _grow_time(a, b, k1, k2, l1, l2)
    was, now, after_b = a[k1:k2], b[l1:l2], b[l2:]
    if not _content(was) or not _content(now):
        return None
    verdict, frame = _changed(a[:k1], a[k2:], was, now, names, often, said=True)
    if verdict == "supersede" or cw.typed(was, now, names):
        return "supersede", f"{frame}, said by a change verb"
    if (_cjk_text(was + now) and _content(a[k2:]) == _content(after_b) and len(_content(after_b)) <= 1
            and cw.kind(was, names) == cw.kind(now, names)):  # not a time for a place: "9点" / "4号会议室"
        return "supersede", "another value at the end, said by a change verb"  # as 在 at the end (2.)
    return "conflict", "said by a change verb, of a kind the rule cannot tell"


def _grow_time(a: list[str], b: list[str], k1: int, k2: int, l1: int, l2: int) -> tuple[int, int, int, int]:
    """The changed places ``a[k1:k2]`` / ``b[l1:l2]`` grown over the time words around them that
    both share, when they are times themselves ("每[两]周" / "每[]周" is "两周" / "周")."""
    def timely(toks: list[str]) -> bool:
        return all(cw.is_time(t) or t in cw.GLUE for t in toks)

    while timely(a[k1:k2] + b[l1:l2]) and k2 < len(a) and l2 < len(b) and a[k2] == b[l2] and cw.is_time(a[k2]):
        k2, l2 = k2 + 1, l2 + 1
    while timely(a[k1:k2] + b[l1:l2]) and k1 > 0 and l1 > 0 and a[k1 - 1] == b[l1 - 1] and cw.is_time(a[k1 - 1]):
        k1, l1 = k1 - 1, l1 - 1
    return k1, k2, l1, l2


def _predicate(part: list[str], *, whole: bool) -> int:
    """How many of the first tokens of ``part`` are a predicate ("live in", "is @", "runs on", 住在,
    是, 有, 习惯用); 0 when it does not start with one. ``whole``: the part is the predicate alone,
    else a value follows it."""
    sets = cw.stemmed()
    n = 0
    for t in part:
        if cw.CJK.match(t):
            break
        if not (t in FUNCTION or t in cw.PREPOSITIONS or t == "@" or t in _linking_stems()
                or any(t in sets[k] for k in ("copula", "attr", "count", "use", "prefer", "like"))):
            break
        n += 1
    if n or not part or not cw.CJK.match(part[0]):
        return n
    # a Chinese predicate: one to three characters, the last a linking one, or a frame word ("定在",
    # "是", "习惯"); the longest that leaves a value after it
    text = _cjk_text(part)
    for p in (len(part),) if whole else (3, 2, 1):
        if p <= 3 and p <= len(text) and (whole or p < len(part)):
            head = text[:p]
            if head[-1] in cw.LINK_ZH or head in cw.FRAME_ZH or whole and any(c in cw.LINK_ZH for c in head):
                return p
    return 0


def _value_tail(was: list[str], now: list[str], names: frozenset[str]) -> list[str]:
    """The end of the older phrase that is a value of the newer one's kind ("held every two weeks"
    → "every two weeks" against "monthly"); the whole phrase when none is."""
    kind = cw.kind(now, names)
    for k in range(1, len(was)):
        tail = was[k:]
        if kind != "word" and cw.kind(tail, names) == kind or cw.same_state(tail, now):
            return tail
    return was


def _one_time(a: list[str], b: list[str], ops: list[tuple[int, int, int, int]]) -> bool:
    (i1, i2, j1, j2), (k1, k2, l1, l2) = ops
    parts = a[i1:i2] + a[k1:k2] + b[j1:j2] + b[l1:l2]
    gap = b[j2:l1]
    return (bool(parts) and all(cw.is_time(t) or t in FUNCTION for t in parts)
            and all(cw.is_time(t) or t in FUNCTION or t in cw.TIME_GAP for t in gap))


def _finished(old: str, new: str) -> tuple[str, str] | None:
    """A state that ends: the older statement says a thing is pending ("in progress", 草稿, 还没修),
    the newer the same thing done ("finished", 已经完成)."""
    a, b = cw.fold(old), cw.fold(new)
    pending = cw.PENDING_EN.search(a) or cw.PENDING_ZH.search(a)
    done = cw.DONE_EN.search(b) or cw.DONE_ZH.search(b)
    if not pending or not done or cw.DONE_EN.search(a) or cw.DONE_ZH.search(a):
        return None
    rest_a = cw.PENDING_ZH.sub("", cw.PENDING_EN.sub(" ", cw.STILL_ZH.sub("", cw.STILL_EN.sub(" ", a))))
    rest_b = cw.DONE_ZH.sub("", cw.DONE_EN.sub(" ", cw.WHEN_ZH.sub("", cw.WHEN_EN.sub(" ", b))))
    aspect = FUNCTION | {"and", "has", "have", "had", "been", "并", "且", "在", "是", "还"}
    if [t for t in tokens(rest_a) if t not in aspect] == [t for t in tokens(rest_b) if t not in aspect] != []:
        return "supersede", "what was pending is done"
    return None
