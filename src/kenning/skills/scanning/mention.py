"""A command or an injection quoted as an example is a mention, not an instruction.

Security reviews and teaching material quote what they warn against ("look for `curl … | sh`",
攻击者会写"忽略之前的所有指令"). A finding in prose is lowered when it lives only inside quotes or
inline code on its line (with the quoted text blanked, its rule no longer fires there; a sentence
may wrap, so its earlier lines count as before the quote) and the quote is framed as a mention:

    forbidden   the quote follows "never", "no", "do not", "不要" … directly ("Never `git push --force`")
                : lowered to medium
    example     the file says its examples are not to be run ("do not run anything from …",
                "treat it as data", "not an instruction to follow", "不要执行"), or an example marker
                comes before the quote in its sentence ("such as", "e.g.", "like", "asking the model to",
                "red flags", "例如", "是否出现", "攻击者 … 写"), after it ("之类", "or similar"), or in the
                line that introduces its list ("Phrases to look for:"):
                critical lowered to high, so a person still looks before the skill is trusted; a high
                one stays high but is not raised by the company it keeps (``escalate``)

Never lowered: a line that tells the agent to run the quote (it opens with "Run", "Execute",
"运行" …) or makes it conditional ("unless", "then run it", "除非"); a fenced code block (it
holds commands to run); a script; decoded text.
"""

from __future__ import annotations

import re

from . import deobfuscate, examples, rules
from .markdown import LIST_ITEM, QUOTED, blank_quotes, fences, inside
from .model import Finding

_KINDS = {"prompt_injection", "exfiltration", "download_exec", "destructive", "reverse_shell", "persistence",
          "defense_evasion", "credential_access"}
# the file says its examples are not to be run
FRAME = re.compile(
    r"(?:do\s+not|don'?t|never)\s+(?:run|execute|follow|obey|act\s+on|test)\b[^\n.]{0,40}?\b(?:anything|"
    r"any\s+(?:code|commands?|of\s+(?:it|them|these|this))|them|it|these|"
    r"the\s+(?:examples?|commands?|patterns?|text|code|diff)|from\s+the)\b|"
    r"treat\s+(?:everything|all|it|the\s+\w+)\b[^\n.]{0,30}\bas\s+(?:data|untrusted|text)\b|"
    r"(?:examples?|patterns?)\s+to\s+recogni[sz]e|not\s+(?:an?\s+)?(?:steps?|instructions?|commands?)\s+to\s+(?:follow|run|obey)|"
    r"to\s+look\s+for,?\s+not\s+to\s+(?:use|follow|run)|\bthese\s+are\s+(?:examples|red\s+flags|samples)\b|"
    r"\b(?:cases|it|everything(?:\s+in\s+it)?|the\s+text(?:\s+to\s+\w+)?)\s+(?:is|are)\s+(?:\*\*)?(?:data|test\s+data)\b|"
    r"\bdoes\s+not\s+follow\s+(?:it|them)\b|\bnot\s+to\s+be\s+(?:followed|run|executed)\b|"
    r"\best\s+une\s+donnée|\bne\s+(?:les\s+|le\s+|l')?(?:exécut|lanc|suiv)\w*\s+pas\b|\bson\s+datos\b|"
    r"\bno\s+(?:las?|los?)\s+(?:ejecut|obedec|sig)\w*|\bsind\s+Daten\b|\bnicht\s+(?:ausführen|befolgen)\b|"
    r"\bэто\s+данные\b|\bне\s+(?:выполня|исполня|запуска)\w*|\bнельзя\s+(?:запускать|выполнять|исполнять)\b|"
    r"(?:当作|视为|作为)[^\n。]{0,8}(?:数据|文本)(?:处理)?|而不是执行|不是指令|データとして扱|実行しないでください|"
    r"(?:不要|切勿|请勿|禁止)(?:\*\*)?(?:执行|运行)|仅供(?:培训|学习|识别)|用于(?:培训|教学)", re.IGNORECASE)
# a prohibition right before the quote: "Never `…`", "do not run `…`"
_FORBIDDEN = re.compile(
    r"(?:(?:\bnever|\bno|\bdo\s+not|\bdon'?t|\bmust\s+not|\bavoid|不要|切勿|请勿|禁止|不得|严禁)\s*"
    r"(?:(?:run(?:ning)?|use|using|execute|type|paste|call|add|write|运行|执行|使用)\s*)?|"
    r"不(?:输出|打印|显示|读取|上传|发送|提交|泄露|执行|运行|粘贴)\s*|"
    # "so a typo cannot turn into `…`": what cannot happen is not a step
    r"\b(?:cannot|can'?t|won'?t|will\s+not|must\s+never|should\s+never)(?!\s+(?:forget|skip|hesitate|fail|omit|miss))"
    r"(?:\s+\w+){0,3}\s*)$", re.IGNORECASE)
# a clause that opens with a prohibition forbids what it quotes ("avoid override-style language (\"…\")"),
# unless it goes on to a time or a condition ("never ask before running `…`")
_PROHIBITED = re.compile(r"^\s*(?:avoid|never|don'?t|do\s+not|must\s+not|不要|切勿|请勿|禁止)\b"
                         r"(?![^\n]*\b(?:before|after|when|until|then|unless|without|instead|except)\b)", re.IGNORECASE)
# a condition or a later "then run it" turns a mention back into an instruction
_UNLESS = re.compile(
    r"\b(?:unless|except|until|but\s+if|only\s+if)\b|\b(?:then|and\s+then)\s+(?:run|execute|paste)\b|"
    r"\b(?:run|execute)\s+it\b|除非|否则|然后(?:运行|执行)", re.IGNORECASE)
# words that introduce a quote as an example
_MARKER = re.compile(
    r"\b(?:such\s+as|e\.g\.|for\s+(?:example|instance)|like|examples?|patterns?|phrases?|"
    r"asking\s+(?:\w+\s+){0,3}to|tell(?:s|ing)?\s+(?:\w+\s+){0,3}to|look(?:ing)?\s+for|watch\s+for|"
    r"search(?:ing)?\s+for|writes?|says?|quotes?|red\s+flags?|warning\s+signs?|signs\s+of|indicators?|"
    r"contains?|looks?\s+like|attacker(?:-\w+)?|malicious|injected|language|phrasing|wording|par\s+exemple|contient|ressembl\w*|du\s+type|por\s+ejemplo|contiene|parec\w*|"
    r"zum\s+Beispiel|z\.\s?B\.|enthält|ähnel\w*|например|вроде|содерж\w*|похож\w*)\b|例えば|たとえば|のような|など|例如|比如|示例|例子|类似|诸如|攻击者|是否(?:出现|有|包含|存在|使用)|"
    r"检查|查找|搜索|留意|警惕", re.IGNORECASE)
# words after a quote that make it an example: "`rm -rf /` 之类的命令", "`curl … | sh` or similar"
_AFTER = re.compile(r"^\s*(?:之类|这样的|这类|一类|等(?:命令|写法|操作)?|or\s+similar|and\s+the\s+like|etc\b)",
                    re.IGNORECASE)
_IMPERATIVE = re.compile(r"^\s*(?:[-*+>]\s+|\d+[.)]\s*|#+\s*)?(?:please\s+|then\s+|now\s+)?"
                         r"(?:run|execute|paste|type|enter|请?(?:运行|执行)|在终端)", re.IGNORECASE)


def _fires(rel: str, kind: str, line: str) -> bool:
    return any(f.kind == kind for f in rules.line_findings(rel, deobfuscate.views(line)))


def lowered(rel: str, text: str, found: list[Finding]) -> list[Finding]:
    """``found`` with the findings that are mentions lowered (see the module docstring)."""
    # a look-alike letter is lowered only where the text presents examples (a table of look-alike domains)
    candidates = [f for f in found if f.kind in _KINDS | {"unicode"} and f.line is not None
                  and f.severity in ("critical", "high") and "in text decoded from" not in f.reason]
    if not candidates:
        return found
    raw = text.split("\n")
    fenced = fences(text)
    rearmed = examples.rearmed(text)  # it runs one of its examples: none of them is a mere example
    framed = FRAME.search(text) is not None and not rearmed
    shown = [] if rearmed else examples.spans(raw, fenced)
    out: list[Finding] = []
    for f in found:
        new = f
        if f in candidates and f.line is not None and f.line <= len(raw):
            if _no_address(f):
                new = Finding(f.kind, "medium", f.file, f.line, f.match, f.reason + "; it names the pattern, with no "
                                                                                   "address to fetch from")
            elif inside(f.line, shown) and (inside(f.line, fenced) or not imperative(raw[f.line - 1])):
                new = _quoted(f)
            elif not inside(f.line, fenced) and f.kind in _KINDS:
                after = raw[f.line] if f.line < len(raw) else ""  # a sentence may wrap onto the next line
                new = _as_mention(rel, f, Quoted.at(raw, f.line), after, framed)
        out.append(new)
    return out


_ADDRESS = re.compile(r"https?://|\$\{?\w|%\w+%|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[\w-]+\.[a-z]{2,}\b|\w/\w", re.IGNORECASE)
_ELIDED = re.compile(r"\.\.\.|…|<[^>\s]{1,20}>")


def _no_address(f: Finding) -> bool:
    """A download-and-run written with its address left out ("`curl … | sh`"): the shape, not a command."""
    return f.kind == "download_exec" and _ELIDED.search(f.match) is not None and _ADDRESS.search(f.match) is None


def _quoted(f: Finding) -> Finding:
    return Finding(f.kind, "high", f.file, f.line, f.match, f.reason + "; quoted as an example in the text, not given "
                                                                       "as an instruction")


# "e.g." ends no sentence: it is read as the marker it is
_ABBREVIATIONS = {"e.g.": " for example ", "i.e.": " that is ", "z.b.": " zum Beispiel ", "etc.": " etc "}
_ABBREVIATION = re.compile(r"\b(?:e\.g\.|i\.e\.|z\.\s?B\.|etc\.)", re.IGNORECASE)


def last_clause(text: str) -> str:
    """The clause of ``text`` nearest its end: after the last sentence end, and after the last comma
    unless nothing follows it ("For example, `…`" keeps "For example")."""
    # a full stop ends a sentence when a space or the end follows ("t.example" is a host name); what an
    # earlier quote holds is not the text's own words; emphasis (``*you*``) is not a word
    text = _ABBREVIATION.sub(lambda m: _ABBREVIATIONS[m.group().replace(" ", "").lower()], text)
    sentence = re.split(r"[.;!?|](?=\s|$)|[。；！？]", blank_quotes(text).replace("*", ""))[-1]
    clauses = [c for c in re.split(r"[,，、]", sentence) if c.strip()]
    return clauses[-1] if clauses else sentence


def imperative(line: str) -> bool:
    """The line tells the reader to run what it quotes ("Run `…`", "请运行 …")."""
    return _IMPERATIVE.match(line) is not None


_BREAK = re.compile(r"^\s*(?:#|\||>|```|~~~)")


class Quoted:
    """A line of prose with what comes before it in its sentence: the earlier lines of its list item or
    paragraph (a sentence wraps), and the line that introduces its list ("Red flags to look for:")."""

    def __init__(self, line: str, lead: str, intro: str) -> None:
        self.line, self.lead, self.intro = line, lead, intro

    @classmethod
    def at(cls, raw: list[str], number: int) -> Quoted:
        """The line ``number`` (1-based) of ``raw`` in its context."""
        first = number - 1
        while (first > 0 and number - 1 - first < 3 and not LIST_ITEM.match(raw[first]) and raw[first - 1].strip()
               and not _BREAK.match(raw[first - 1]) and not _BREAK.match(raw[first])):
            first -= 1
        lead = " ".join(raw[first:number - 1])
        intro = ""
        if LIST_ITEM.match(raw[first]):  # the lines before the list: the nearest one that is not an item
            k = first - 1
            while k >= 0 and (not raw[k].strip() or LIST_ITEM.match(raw[k]) or raw[k].startswith((" ", "\t"))):
                k -= 1
            intro = raw[k] if k >= 0 and raw[k].rstrip().endswith(":") else ""
        return cls(raw[number - 1], lead, intro)

    def starts(self) -> str:
        """The first line of the sentence or item, where an imperative would stand."""
        return self.lead or self.line

    def before(self, start: int) -> str:
        """What the sentence says before position ``start`` of the line."""
        return (self.lead + " " + self.line[:start]) if self.lead else self.line[:start]


def mentioned(line: str | Quoted) -> bool:
    """The line quotes something and frames the quote as an example or forbids it (whatever it quotes)."""
    q = line if isinstance(line, Quoted) else Quoted(line, "", "")
    quotes = _quotes(q)
    return bool(quotes) and _framing(q, quotes) is not None


def _quotes(q: Quoted) -> list[re.Match[str]]:
    """What the line quotes, or nothing when its sentence tells the reader to run it or makes it conditional."""
    if _IMPERATIVE.match(q.starts()) or _UNLESS.search(blank_quotes(q.before(len(q.line)))):
        return []
    return list(QUOTED.finditer(q.line))


def _framing(q: Quoted, quotes: list[re.Match[str]]) -> str | None:
    """"forbidden" when the sentence forbids what it quotes, "example" when it presents it as one, else None."""
    before = [q.before(m.start()).rstrip(" *_") for m in quotes]
    if any(_FORBIDDEN.search(b) or _PROHIBITED.match(last_clause(b)) for b in before):
        return "forbidden"
    if (any(_MARKER.search(last_clause(b)) for b in before) or _MARKER.search(q.intro)
            or any(_AFTER.match(q.line[m.end():]) for m in quotes)):
        return "example"
    return None


def _as_mention(rel: str, f: Finding, q: Quoted, after: str, framed: bool) -> Finding:
    quotes = _quotes(q)
    if not quotes or _fires(rel, f.kind, blank_quotes(q.line) + "\n" + blank_quotes(after)):  # said outside them too
        return f
    framing = _framing(q, quotes)
    if framing == "forbidden":
        return Finding(f.kind, "medium", f.file, f.line, f.match, f.reason + "; quoted in a sentence that forbids it")
    if framed or framing == "example":  # high stays high, but is not raised
        return _quoted(f)
    return f
