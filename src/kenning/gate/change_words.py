"""The words ``gate.current`` reads a correction by, in English and Chinese, and the reading itself.

Three parts. The closed classes of the rule's frames: time and number words, states of one set,
the predicates of a copula, an attribute, a count, an owner, a preference, a use. The kinds of
value a changed phrase may be (``kind``, ``typed``: a number, a time, a proper name, a state).
And the words of change. A person who corrects a fact rarely restates it with one word swapped;
they say the change: a time word ("now", "from now on", 现在, 以后), a change verb with its
direction ("moved to", "was upgraded to", "bumped to", 改到, 换成, 升级到), the old value named as
replaced ("from X to Y", "instead of X", "…, not X", 从X换成Y, 不再用X, 不是X), or a verb that ends
what was ("left", "quit", 戒, 退). Other words say that both statements hold: an addition ("also",
"too", 也, 还, 新增), persistence ("still", 仍然, 还是), or an older statement dated in the past ("as
a child", "before 2020", 去年, 小时候, a year).

``said(text)`` cuts the words of change out of a statement and says which it found; the other
readers answer one question each (``both_hold``, ``ceased``, ``past``, ``often``). They are
patterns over the NFKC, case-folded text, not a lexicon of meaning: each class is a handful of
grammatical words and the common verbs of change. A statement longer than ``READ_LIMIT`` is not
read for them (a fact is a sentence; some patterns cost quadratic time on long hostile text).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..text import stem
from .novelty import FUNCTION

READ_LIMIT = 1000  # characters


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# == the closed classes of the rule (``current`` stems the English ones) ======================================

TIME_EN = _words("""monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
    thursdays fridays saturdays sundays weekday weekdays weekend weekends january february march april may
    june july august september october november december daily weekly monthly quarterly yearly annually
    annual hourly biweekly fortnightly nightly morning afternoon evening night noon midnight today tomorrow
    week month year quarter day hour minute second spring summer autumn fall winter every per""")
NUMBER_EN = _words("""zero one two three four five six seven eight nine ten eleven twelve twenty thirty
    hundred thousand once twice half single double first second third fourth fifth sixth seventh eighth
    ninth tenth""")
STATE_EN = [_words(s) for s in (
    "open closed close", "public private internal", "optional mandatory required", "on off", "enabled disabled",
    "allowed forbidden banned", "green red yellow", "up down", "active inactive",
    "blue green red yellow orange purple black white grey gray", "dark light",
    "short long brief detailed concise verbose")]
CARDINAL = _words("zero one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty "
                  "hundred thousand")
MEASURE_ZH = "个只台次人名位家条件项种门本辆套张间杯"  # the word that counts a noun: "三个人", "5个项目"
TIME_ZH = "一二三四五六七八九十百千万两半零〇周星期月日号年天点分钟秒季度每时晚早午晨夜"  # 上/中 … are words too
NUMBER_ZH = "一二三四五六七八九十百千万两半零〇几"
STATE_ZH = ["开关", "公开私有", "可选必须", "红橙黄绿青蓝紫黑白灰粉棕", "启用禁用", "深浅", "简短详细简洁", "繁简"]

COPULA_EN = _words("is are was were be am become becomes became")
ATTR_EN = _words("""start starts begin begins end ends open opens close closes last lasts take takes cost costs
    happen happens meet meets expire expires rotate rotates refresh refreshes kept retained stored hosted
    served held scheduled planned booked set due target targets listen listens default defaults live lives
    sit sits base located locat moved move relocated cadence""")
COUNT_EN = _words("has have had need needs require requires contain contains")  # many things, one count
NAMED_EN = _words("called named")
OWNER_EN = _words("by")
# "by" names the one who holds a thing only after a verb of holding or running it ("owned by",
# "maintained by", "led by"); after another ("sorted by date", "sent by email", "pays by card") it
# names a means or a criterion, of which there may be many
OWNING_EN = _words("""own owned maintain maintained lead led run manage managed handle handled chair chaired
    back backed head headed operate operated host hosted power powered fund funded sponsor sponsored staff
    staffed govern governed administer administered assign assigned drive driven coordinate coordinated
    organise organised organize organized supervise supervised oversee overseen""")
PREFER_EN = _words("prefer prefers preferred want wants wanted favourite favorite")
LIKE_EN = _words("like likes love loves enjoy enjoys")
USE_EN = _words("use uses using used")
# a copula that only helps another predicate ("can be exported as", "is deployed in", "is available
# in"): a possibility, or a verb that may take many places or forms, not one value of the subject
MODAL_EN = _words("can could may might")
# predicates of where a thing is spread or offered: one thing is deployed, sold, offered, supported
# in many places and forms at once ("is deployed in us-east-1" / "… in ap-southeast-2")
SPREAD_ZH = ("部署", "发布", "上架", "销售", "出售", "安装", "提供", "镜像", "翻译", "上线")
SPREAD_EN = _words("""available deployed installed sold offered supported published listed shipped distributed
    replicated mirrored translated localized localised exported imported accepted spoken stocked released
    licensed registered""")
# an item named among others of its kind ("has a son named Leo", 有个儿子叫乐乐): another name may
# be another item, not a correction of this one's
INDEFINITE_EN = _words("a an one another")
ITEM_ZH = re.compile(r"(?:有|[一两二三四五六七八九十几])[个只台位条名头匹家本辆套张间]")
# verbs of composing in a language or a medium ("uses Kotlin to write services", 用Kotlin写服务,
# 用英文写文档): a team writes in many, while a tool for a job ("Jenkins for CI", 用Webpack打包) is one
COMPOSE_EN = _words("write writes writing code codes coding program programs programming develop develops "
                    "developing draw draws drawing paint paints translate translates speak speaks teach teaches")
COMPOSE_ZH = ("写", "编写", "编程", "开发", "画", "翻译", "说", "讲", "教")

COPULA_ZH: tuple[str, ...] = ("是", "为", "改为", "改成")  # and 在 right before the change
NAMED_ZH = ("叫", "名为", "名字是")
COUNT_ZH = ("需要", "有")
NOT_COPULA_ZH = ("现在", "正在", "存在", "实在", "所在", "自在", "在于", "还在", "都在")
OWNER_ZH = ("由", "负责人", "归")
PREFER_ZH = ("更喜欢", "偏好", "希望", "习惯", "倾向", "最喜欢", "想要")
LIKE_ZH = ("喜欢", "爱")
USE_ZH = ("使用", "采用", "用")
ATTR_ZH = ("开始", "结束", "到期", "保留", "刷新", "轮换", "开门", "关门", "入职", "上线", "持续")

# a statement that says something stopped; with no negation word in it
CESSATION = _words("stop stopped quit 停止 停用 放弃")
NEG_EXTRA = _words("longer anymore more again")  # "no longer", "not anymore": part of the negation

# words that only glue a number or a time together ("five [people]" is a count, "三个", "every other
# week", "三次", "下午", "月初"): the kind is that of the rest
GLUE = _words("time times other 个 位 名 只 台 次 件 条 种 项 家 小 上 下 中 初 底 末 凌 傍")

PREPOSITIONS = _words("for in on at to of with by through from via as")

# the words between two parts of one time ("on Tuesdays at 2pm", "周二下午两点")
TIME_GAP = frozenset("at on in of from to 上 下 中 早 晚 午 凌 晨 傍 夜 初 底 末".split())

# a Chinese predicate holds one of these characters, or is one of these words ("住在", "是", "习惯")
LINK_ZH = "在是为到用有归由从于"
FRAME_ZH = frozenset((*PREFER_ZH, *LIKE_ZH, *USE_ZH, *OWNER_ZH, *NAMED_ZH, *COUNT_ZH, *ATTR_ZH, "安排", "定"))

# ways of saying where (or when) a thing is, read as one: "moved to Munich" corrects "is in Berlin"
WHERE_EN = ((("move", "to"), 2), (("relocat", "to"), 2), (("is", "locat", "in"), 3), (("locat", "in"), 2),
            (("is", "base", "in"), 3), (("is", "in"), 2), (("is", "at"), 2), (("is", "on"), 2),
            (("are", "in"), 2), (("are", "at"), 2), (("are", "on"), 2))
WHERE_ZH = ("搬到了", "搬到", "迁到了", "迁到", "位于", "改到了", "改到")


# == value kinds ============================================================================================

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
IDENTIFIER = re.compile(r"[^\W\d_][./@][^\W\d_]")  # a host name, a path, an address


@lru_cache(maxsize=1)
def stemmed() -> dict[str, frozenset[str]]:
    def s(words: frozenset[str]) -> frozenset[str]:
        return frozenset(stem(w) for w in words) | words

    out = {"time": s(TIME_EN), "number": s(NUMBER_EN), "copula": COPULA_EN, "attr": s(ATTR_EN),
           "prefer": s(PREFER_EN), "like": s(LIKE_EN), "use": s(USE_EN), "cessation": s(CESSATION),
           "count": s(COUNT_EN), "named": s(NAMED_EN), "neg_extra": s(NEG_EXTRA), "compose": s(COMPOSE_EN),
           "spread": s(SPREAD_EN), "owning": s(OWNING_EN),
           "indefinite": s(INDEFINITE_EN)}
    out.update({f"state:{i}": s(states) for i, states in enumerate(STATE_EN)})
    return out


def proper_names(text: str, *, first: bool = False) -> frozenset[str]:
    """The stemmed, folded forms of the proper names in ``text``: capitalised words other than the
    first word of a sentence (with ``first``, that one too), and any Latin word of a text that
    holds Chinese."""
    folded = unicodedata.normalize("NFKC", text)
    cjk = bool(CJK.search(folded))
    out: set[str] = set()
    for m in re.finditer(r"[A-Za-z][A-Za-z0-9+#.-]*", folded):
        word = m.group()
        before = folded[:m.start()].rstrip()
        opening = not before or before[-1] in ".!?。！？:"
        if cjk or (word[0].isupper() and (first or not opening)) or (word.isupper() and len(word) > 1):
            for part in re.findall(r"[^\W\d_]+", word.casefold()):
                out.add(stem(part))
    return frozenset(out)


def is_number(t: str) -> bool:
    return any(c.isdigit() for c in t) or t in stemmed()["number"] or (len(t) == 1 and t in NUMBER_ZH)


def is_time(t: str) -> bool:
    return is_number(t) or t in stemmed()["time"] or (len(t) == 1 and t in TIME_ZH)


def kind(part: list[str], names: frozenset[str]) -> str:
    """"number", "time", "name" or "word" for the changed phrase ``part`` (states: ``same_state``)."""
    words = [t for t in part if t not in FUNCTION]
    if not words:
        return "word"
    core = [t for t in words if t not in GLUE] or words
    if all(is_number(t) for t in core):
        return "number"
    if all(is_time(t) for t in core):
        return "time"
    if all(t in names or IDENTIFIER.search(t) for t in words):
        return "name"
    return "word"


def same_state(was: list[str], now: list[str]) -> bool:
    """Both phrases are states of one closed set (open / closed, 公开 / 私有, blue / green)."""
    a, b = [t for t in was if t not in FUNCTION], [t for t in now if t not in FUNCTION]
    if not a or not b:
        return False
    sets = stemmed()
    for i in range(len(STATE_EN)):
        if all(t in sets[f"state:{i}"] for t in a + b):
            return True
    return any(all(len(t) == 1 and t in chars for t in a + b) for chars in STATE_ZH)


def typed(was: list[str], now: list[str], names: frozenset[str]) -> bool:
    """Both phrases are values of one recognisable kind (a number for a time counts: "at 9" / "at noon")."""
    if same_state(was, now):
        return True
    a, b = kind(was, names), kind(now, names)
    if a == "word" or b == "word":
        return False
    return a == b or {a, b} == {"number", "time"}


# == the words of change =====================================================================================

# -- said now ---------------------------------------------------------------------------------------------
# "new" only of a thing someone has ("the user's new email", "our new office"), not "a new login page"
NOW_EN = re.compile(r"\b(?:from now on|going forward|these days|nowadays|currently|now|latest)\b"
                    r"|(?:(?<='s )|(?<=\bour )|(?<=\bmy )|(?<=\btheir )|(?<=\bhis )|(?<=\bher ))new\b")
# 以后 after a time is "after" it ("晚上六点以后没空", "三月以后"), not "from now on"
NOW_ZH = re.compile(r"从现在起|从现在开始|现在|目前|如今|(?<![0-9一二三四五六七八九十百千万两半零〇周星期月日号年天点分钟秒季度时晚早午晨夜])以后"
                    r"|今后|往后|从此|最新|当前")
# habit and degree words that a restatement adds or leaves out ("usually", 平时, 基本, 都)
HEDGE_EN = re.compile(r"\b(?:usually|normally|typically|generally|mostly|basically|often|always)\b")
HEDGE_ZH = re.compile(r"平时|平常|一般|通常|基本上|基本|大多|经常|都")

# when the change happened: says nothing about the value ("relocated to Vancouver last month")
WHEN_EN = re.compile(r"\b(?:(?:last|this past) (?:week|month|year|quarter|night|spring|summer|autumn|fall|"
                     r"winter)|yesterday|recently|(?:a|an|one|two|three|few|\d+) (?:day|week|month|year)s? ago)\b")
WHEN_ZH = re.compile(r"去年|上个?月|上周|上星期|昨天|前天|最近|刚刚|已经|早就|就")

# -- a change verb and its direction ---------------------------------------------------------------------
# an auxiliary before it, the verb, a particle, and the preposition that introduces the new value:
# the phrase is replaced by ``MARK`` and the value compared with the old one
_AUX_EN = r"(?:(?:has|have|had|was|were|is|are|got|gets|get|been|be|will be)\s+)*"
# the common verbs of change, every form spelled out: a stem with "\w*" would catch "password"
_VERBS_EN = """move moves moved moving relocate relocates relocated relocating switch switches switched
    switching change changes changed changing upgrade upgrades upgraded upgrading downgrade downgrades downgraded
    migrate migrates migrated migrating reschedule rescheduled rescheduling postpone postponed delay delayed
    slip slips slipped push pushed bump bumps bumped raise raises raised lower lowers lowered reduce reduces
    reduced increase increases increased decrease decreases decreased cut cuts shorten shortened extend
    extended lengthen lengthened rename renames renamed scale scales scaled shrink shrinks shrank shrunk grow
    grows grew grown revise revised transfer transfers transferred hand hands handed pass passes passed turn
    turns turned convert converted swap swapped rebook rebooked reassign reassigned shift shifted promote
    promoted took taken takes""".split()
_VERB_EN = "(?:" + "|".join(sorted(_VERBS_EN, key=len, reverse=True)) + ")"
_PARTICLE_EN = r"(?:\s+(?:over|back|down|up|out|forward))?"
# "took over … from ops": a change verb, and the older holder last
VERB_EN = re.compile(rf"\b{_VERB_EN}\b")
FROM_LAST_EN = re.compile(r"\bfrom\s+(?P<x>[^,.;]+?)\s*[.!]?$")
# up to four words of object may stand between the verb and its preposition ("scaled the cluster to
# 20 nodes"): they are kept, the verb and the preposition dropped
CHANGE_EN = re.compile(rf"\b{_AUX_EN}{_VERB_EN}{_PARTICLE_EN}\b"
                       r"(?P<obj>(?:\s+(?!to\b|into\b|for\b)[\w'.#-]+){0,4}?)\s+(?:to|into|for)\b")

# 改 / 换 / 调 as change verbs, not inside 修改, 改动, 交换, 空调 …; then the direction (到 成 为 至 给)
CHANGE_ZH = re.compile(
    r"(?:改期|改签|改名|(?<![修批更])改(?![动进善革造编正])|(?<![交切])换|搬|迁移?|挪|调(?=[到成为至整高低])|调整"
    r"|升级?(?!降)|降(?!落)|推迟|延期|延后|提前|缩减|缩短|缩小|减少?(?!肥)|扩容|扩大|涨|砍|转(?=[到成为至学岗])"
    r"|变(?![更化])|交给|移交|下调|上调)[到成为至给去]?了?(?:到|成|为|至|给)?")

# -- the old value named as replaced ---------------------------------------------------------------------
# group "x" holds the old value; the match is cut out of the new statement
REPLACED_EN = (
    re.compile(r"\bfrom\s+(?P<x>[^,.;]+?)\s+(?=to\b)"),  # "switched CI from CircleCI to GitHub Actions"
    re.compile(r",?\s*\b(?:instead of|rather than)\s+(?P<x>[^,.;]+)"),
    re.compile(r"\breplac\w*\s+(?P<x>[^,.;]+?)\s+(?:with|by)\b"),
    re.compile(r",\s*(?:and\s+)?not\s+(?P<x>[^,.;]+?)\s*(?:anymore|any more)?\s*[.!]?$"),  # "is Dana, not Sam"
)
REPLACED_ZH = (
    re.compile(r"从(?P<x>[^，,。从]+?)(?=(?:改|换|迁|搬|转|变|调|升|降|挪)[^，,。]*)"),  # 从X换成Y
    re.compile(r"(?:[，,]|而)不是(?P<x>[^，,。]+)$"),  # …，不是小陈
    re.compile(r"[，,](?:不要|不用|不再用|不再使用|别用)(?P<x>[^，,。]+?)了?$"),  # …，不用SendGrid了
    re.compile(r"(?:取代|代替|替代|替换)(?:了)?(?P<x>[^，,。]+)$"),
)

# how often a thing is done: an activity has one rate ("every 5 minutes" / "every minute")
OFTEN_EN = re.compile(r"\b(?:every|each|per|once|twice|thrice|\w+ times|daily|weekly|monthly|quarterly|yearly|"
                      r"annually|hourly|nightly|biweekly|fortnightly)\b")
OFTEN_ZH = re.compile(r"每|[\d一二两三四五六七八九十几]次")

# -- both hold --------------------------------------------------------------------------------------------
ADDITION_EN = re.compile(r"\b(?:also|too|either|as well|additionally|in addition|besides|another|added|adds)\b")
# 也 / 还 as words, not inside 也许 (maybe), 还款 (repay), 归还 (return), 还是 / 还在 (still: below)
ADDITION_ZH = re.compile(r"(?<![再])也(?!许)|(?<![归偿退])还(?![款原债是在])|又|另外|此外|同时|新增|增加了|添加了")
STILL_EN = re.compile(r"\bstill\b")
STILL_ZH = re.compile(r"仍然|仍|依然|依旧|照常|照旧|还是|还在|一直")
# an old statement bounded in the past is history, not a value a newer one replaces
PAST_EN = re.compile(r"\b(?:previous(?:ly)?|former(?:ly)?|before|ago|used to|as a (?:child|kid|student|teenager)"
                     r"|yesterday|last (?:week|month|year|quarter|time)|(?:19|20)\d\d)\b")
PAST_ZH = re.compile(r"以前|之前|前任|去年|昨天|前天|小时候|曾经|当年|上次|上个|原来|(?:19|20)\d\d")

# -- a verb that ends what was (a negation said by the verb) ---------------------------------------------
CESSATION_EN = re.compile(r"\b(?:stopp?\w*|quit\w*|cancel+\w*|(?<!the )(?<!on )(?<!to )left|gave up|given up|"
                          r"discontinu\w*|(?:turn|switch|shut)\w* off|retired|removed)\b")
CESSATION_ZH = re.compile(r"停止|停用|停掉|放弃|戒|退掉|退了|退出|离开|取消|关闭|关掉|下线|禁止|不再")

# -- a state that ends ("in progress" → "finished", 进行中 → 完成) ------------------------------------------
PENDING_EN = re.compile(r"\b(?:in progress|ongoing|underway|pending|planned|a draft|draft|not yet \w+|still open|"
                        r"in review|under review|open)\b")
DONE_EN = re.compile(r"\b(?:finished|done|complete[d]?|approved|merged|shipped|released|fixed|resolved|closed|"
                     r"launched|signed off)\b")
PENDING_ZH = re.compile(r"还在进行中|进行中|还在进行|草稿|待定|待审|审核中|未完成|还没\w?|尚未\w?|筹备中|计划中")
DONE_ZH = re.compile(r"完成|结束|批下来|通过|修复|修好|关闭|上线|落地|搞定|签了|发布了")

# the possessive pronouns that restate a subject ("their gym membership") and the words of the
# Chinese object-fronting construction ("把健身卡退了"): dropped when claims are compared
RESTATING = frozenset("their his her my your its our they he she i 把 将".split())


# == reading a statement through them ========================================================================

# where a change verb stood ("The service [was upgraded to] Node 20"): a token of ``novelty.tokens``
MARK = "="


def fold(text: str) -> str:
    """NFKC, case-folded, curly apostrophes straight; "" past ``READ_LIMIT`` (not read)."""
    return "" if len(text) > READ_LIMIT else unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")


def both_hold(old: str, new: str) -> str:
    """Why both statements hold when the newer one says so: an addition ("also", 也), persistence
    ("still", 仍然) that the older one does not say; "" when it says neither."""
    a, b = fold(old), fold(new)
    for pattern, why in ((ADDITION_EN, "one adds to the other"), (ADDITION_ZH, "one adds to the other"),
                         (STILL_EN, "one says the other holds still"), (STILL_ZH, "one says the other holds still")):
        if pattern.search(b) and not pattern.search(a):
            return why
    return ""


def ceased(text: str) -> str:
    """``text`` with a verb that ends what was ("left", "cancelled", 戒, 退了) written as a negation,
    and the time of that end dropped, so that ``_no_longer`` reads "Alex left the platform team" as
    "Alex not the platform team"; ``text`` itself past ``READ_LIMIT``."""
    if len(text) > READ_LIMIT:
        return text
    folded = WHEN_ZH.sub("", WHEN_EN.sub(" ", fold(text)))
    folded = NOW_ZH.sub("", NOW_EN.sub(" ", folded))
    folded = CESSATION_ZH.sub("不", CESSATION_EN.sub(" not ", folded))
    return " ".join(w for w in folded.split(" ") if w not in RESTATING).replace("把", "")


@dataclass(frozen=True)
class Said:
    """A statement with its words of change cut out: ``text`` the rest, ``signals`` what was cut
    ("now", "verb", "replaced"), ``replaced`` the old value it names ("from X to …", "instead of X")."""

    text: str
    signals: frozenset[str]
    replaced: str = ""


def said(text: str) -> Said:
    """``text`` with its words of change cut out (``Said``); past ``READ_LIMIT``, as it is."""
    if len(text) > READ_LIMIT:
        return Said(text, frozenset())
    folded, signals, replaced = fold(text), set(), ""
    for pattern, signal, repl in ((NOW_EN, "now", " "), (NOW_ZH, "now", ""), (WHEN_EN, "", " "),
                                  (WHEN_ZH, "", ""), (HEDGE_EN, "", " "), (HEDGE_ZH, "", "")):
        folded, n = pattern.subn(repl, folded)
        if n and signal:
            signals.add(signal)
    verb = VERB_EN.search(folded) is not None
    for pattern in (*REPLACED_EN, *REPLACED_ZH, *((FROM_LAST_EN,) if verb else ())):
        m = pattern.search(folded)
        if m:
            replaced = m.group("x").strip()
            folded = folded[:m.start()] + " " + folded[m.end():]
            signals.add("replaced")
            break
    for pattern, repl in ((CHANGE_EN, rf"\g<obj> {MARK} "), (CHANGE_ZH, MARK)):
        folded, n = pattern.subn(repl, folded)
        if n:
            signals.add("verb")
    words = [w for w in folded.split() if w not in RESTATING]
    return Said(" ".join(words).replace("把", ""), frozenset(signals), replaced)


def past(text: str) -> bool:
    """``text`` is dated in the past ("as a child", "before 2020", 去年, a year)."""
    folded = fold(text)
    return bool(PAST_EN.search(folded) or PAST_ZH.search(folded))


def often(*texts: str) -> bool:
    """Every one of ``texts`` says how often ("every 5 minutes", "twice a week", "每天一次")."""
    return all(OFTEN_EN.search(fold(t)) or OFTEN_ZH.search(fold(t)) for t in texts)
