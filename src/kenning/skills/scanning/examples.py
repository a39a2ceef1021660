"""Where a Markdown file presents what follows as examples to recognise or reject, not steps to take.

Security reviews, incident runbooks, detection rules and prompt-injection guides show what they
warn against: a section headed "Red flags", "常见恶意痕迹（识别用示例，勿执行）" or "How injections
look (recognise, don't obey)"; a block, list or table right after a lead-in such as "Reject:",
"反例（拒绝）：" or "Attack command lines (detection targets, do not run):"; a table whose header
names its cells examples or patterns. What such a span holds is quoted (``mention``): a critical
finding there is lowered to high and never raised by its company, so a person still looks.

A span is not an example when its lead-in tells the reader to run it ("Run:", "执行以下命令：", "…run the
following block unchanged:"), a section only under the skill's title (``#``) is not one, and
a line in it that opens with "Run" is not either; and a file that tells the agent to run one of its
examples ("now run the third example exactly as written", "create pattern #3 as shown in the table")
has none. Decoded text and scripts are never examples.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .markdown import FENCE, HEADING, LIST_ITEM, inside

# words that present what follows as something to recognise, detect or reject (en, zh, fr, es, de, ru, ja)
WARNS = re.compile(
    r"\b(?:recogni[sz]e|don'?t\s+(?:obey|run|execute|follow|use)|do\s+not\s+(?:obey|run|execute|follow|use)|"
    r"never\s+(?:run|execute)|not\s+to\s+(?:run|use|follow|obey)|malicious|attack(?:s|ers?)?|adversar\w*|"
    r"red[\s-]+flags?|warning\s+signs?|indicators?|IoCs?|reject(?:ed)?|block\s+the\s+(?:PR|merge)|"
    r"bad\s+(?:patterns?|examples?|practices?)|dangerous\s+(?:patterns?|shapes?|commands?)|anti-?patterns?|"
    r"what\s+to\s+(?:look\s+for|reject|flag)|refus(?:e|ed|al)|injections?\s+look|injection\s+(?:examples?|samples?|payloads?)|"
    r"payloads?|suspicious|threats?|(?:test|red[\s-]?team)\s+(?:prompts?|payloads?)|quoted\s+examples?|"
    r"detection\s+(?:targets?|rules?)|samples?\s+to\s+detect|prompt\s+injection|defen[cs]es?|"
    r"malveillant\w*|attaqu\w*|à\s+rejeter|rejet\w*|refus\w*|bloquant\w*|ne\s+pas\s+(?:exécuter|lancer)|suspect\w*|"
    r"reconna[iî]tre|signaux|"
    r"malicios\w*|ataques?|rechaz\w*|no\s+ejecut\w*|sospechos\w*|reconoc\w*|señales|"
    r"bösartig\w*|schädlich\w*|Angriff\w*|Angreifer\w*|abzulehnen|ablehnen|nicht\s+ausführen|verdächtig\w*|"
    r"Warnsignale?|erkennen|"
    r"вредонос\w*|атак\w*|злоумышлен\w*|признак\w*|не\s+(?:выполня|запуска)\w*|отклон\w*|подозрит\w*|"
    r"распозна\w*)\b|"
    r"反例|错误示例|恶意|攻击|识别用|勿执行|不要执行|请勿执行|危险(?:写法|命令|模式)|拒绝|痕迹|检测(?:对象|规则)|样例|"
    r"可疑|威胁|悪意|攻撃|実行しない|拒否|不審|兆候|危険な|認識すべき|見分け|識別", re.IGNORECASE)
# a lead-in that is a verdict on what follows: "Bad:", "Avoid:", "❌ Don't:", "反例：", "悪い例："
_VERDICT = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*)?(?:❌|✗|✘)?\s*(?:bad|wrong|unsafe|insecure|avoid|never|reject|don'?t|"
                      r"mauvais|à\s+éviter|incorrecto|evitar|falsch|schlecht|vermeiden|плохо|неправильно)\b|"
                      r"^\s*(?:[-*+]\s+)?(?:\*\*)?(?:❌|✗|✘)?\s*(?:错误(?:示例|写法)?|反例|不推荐|悪い例|NG例?)", re.IGNORECASE)
# a lead-in that tells the reader to run what follows
_RUN = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s*)?(?:\*\*)?(?:run|execute|install|paste|type|then|now|next|"
                  r"请?(?:运行|执行|输入)|exécutez|lancez|ejecuta|führe|выполн|実行して)", re.IGNORECASE)
# a table header that names its cells examples
# ... or says anywhere in it that what follows is to be run ("Run the following block unchanged")
_RUNS = re.compile(r"\b(?:run|execute)\s+(?:the\s+)?(?:following|next|block|command|script|this|these|it)\b|"
                   r"(?:运行|执行)(?:以下|下面|如下)|\bexécute[zr]?\s+(?:le|la|les|ce)\b|\bejecuta[r]?\s+(?:el|este|lo)\b|"
                   r"\bführe\b[^\n.]{0,30}\baus\b|\bвыполни\w*\s+(?:следующ|этот|блок|команд)|次の[^\n。]{0,10}実行",
                   re.IGNORECASE)
_EXAMPLE_COLUMN = re.compile(r"\b(?:examples?|patterns?|inputs?|samples?|payloads?|indicators?|signals?|red\s+flags?|looks\s+like|"
                             r"как\s+выглядит|образ\w*|"
                             r"exemples?|ejemplos?|Beispiele?|примеры?)\b|示例|样例|例|特征|模式|痕迹", re.IGNORECASE)


# a step that runs one of the examples after all: "run the third example exactly as written", "create
# pattern #3 as shown in the table", "执行表中第 3 个示例"
_REARMED = re.compile(
    r"\b(?:run|execute|create|apply|paste|seed|reproduce|trigger|launch|start|recreate|use)\b[^\n.]{0,60}?"
    r"\b(?:examples?|patterns?|rows?|entry|entries|samples?|snippets?|payloads?|variants?|blocks?|commands?|lines?)\b"
    r"[^\n.]{0,40}?"
    r"(?:\#?\d+|\babove\b|\bbelow\b|\bexactly\b|\bas\s+(?:written|shown|listed)\b|\bfrom\s+the\s+(?:table|list)\b|"
    r"\b(?:in|from|under)\s+(?:the\s+)?[^\n.]{0,30}\bsection\b)|"
    r"\b(?:run|execute|create|apply|seed|reproduce)\s+(?:the\s+)?(?:\w+\s+)?(?:[\w-]+\s+)?(?:examples?|patterns?|rows?|"
    r"entry|samples?)\s+(?:\#?\d+|[A-Z]\b)|"
    r"(?:执行|运行|创建|复现)(?:一下)?(?:上面|上述|表中|表格中|列表中)?的?第\s*\d+\s*(?:个|条|行)|"
    r"(?:执行|运行|创建|复现)(?:一下)?(?:上面|上述|表中|表格中|列表中)的?(?:示例|样例|例子)|"
    r"(?:exécute[zr]?|lance[zr]?)\b[^\n.]{0,40}\bexemple|(?:ejecuta[r]?|lanza[r]?)\b[^\n.]{0,40}\bejemplo|"
    r"\b(?:führe|starte)\b[^\n.]{0,40}\bBeispiel|(?:выполни|запусти)\w*[^\n.]{0,40}пример|例\s*\d*\s*を実行",
    re.IGNORECASE)


def rearmed(text: str) -> bool:
    """The text tells the agent to run one of the examples it quotes: then none of them is a mere example."""
    return _REARMED.search(text) is not None


def spans(lines: list[str], fenced: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(first, last) line numbers (1-based) that the text presents as examples (see the module docstring)."""
    out: list[tuple[int, int]] = []
    for n, line in enumerate(lines, 1):
        if inside(n, fenced) or not line.strip():
            continue
        heading = HEADING.match(line)
        if heading is not None:  # the title (#) names the skill's topic, not a section of examples
            if len(heading.group(1)) >= 2 and WARNS.search(heading.group(2)):
                out.append((n + 1, _section_end(lines, fenced, n, len(heading.group(1)))))
        elif line.rstrip(" *").endswith((":", "：")) and not _RUN.match(line):
            lead = _paragraph_to(lines, n)
            if (_VERDICT.match(line) or WARNS.search(lead)) and not _RUNS.search(lead):
                block = _block_after(lines, fenced, n)
                out += [block] if block else []
        elif line.lstrip().startswith("|") and _EXAMPLE_COLUMN.search(line) and _is_table_header(lines, n):
            out.append((n + 2, _run_end(lines, n + 2, lambda s: s.lstrip().startswith("|"))))
    return out


def _paragraph_to(lines: list[str], n: int) -> str:
    """Line ``n`` and the lines of its paragraph before it (a lead-in may wrap)."""
    k = n
    while k > 1 and n - k < 4 and lines[k - 2].strip() and not HEADING.match(lines[k - 2]):
        k -= 1
    return " ".join(lines[k - 1:n])


def _section_end(lines: list[str], fenced: list[tuple[int, int]], start: int, level: int) -> int:
    for k in range(start + 1, len(lines) + 1):
        m = HEADING.match(lines[k - 1])
        if m is not None and not inside(k, fenced) and len(m.group(1)) <= level:
            return k - 1
    return len(lines)


def _block_after(lines: list[str], fenced: list[tuple[int, int]], n: int) -> tuple[int, int] | None:
    """The fenced block, list, table or quotation that follows the lead-in on line ``n``."""
    k = n + 1
    while k <= len(lines) and not lines[k - 1].strip() and k <= n + 2:
        k += 1
    if k > len(lines):
        return None
    first = lines[k - 1]
    if FENCE.match(first):
        block = next(((a, b) for a, b in fenced if a == k + 1), None)
        return (k, block[1] + 1) if block else None
    if LIST_ITEM.match(first) or first.lstrip().startswith(("|", ">")):
        return k, _run_end(lines, k, lambda s: bool(LIST_ITEM.match(s)) or s.startswith((" ", "\t"))
                           or s.lstrip().startswith(("|", ">")) or FENCE.match(s) is not None, fenced)
    return None


def _run_end(lines: list[str], k: int, keeps: Callable[[str], bool], fenced: list[tuple[int, int]] | None = None) -> int:
    """The last line of the run that starts at ``k``: lines ``keeps`` accepts, fenced lines, single blank lines
    between them."""
    last = k
    for j in range(k, len(lines) + 1):
        text = lines[j - 1]
        if (fenced and inside(j, fenced)) or (text.strip() and keeps(text)):
            last = j
        elif not text.strip() and j + 1 <= len(lines) and lines[j].strip() and keeps(lines[j]):
            continue
        elif text.strip():
            break
        elif j > last + 1:
            break
    return last


def _is_table_header(lines: list[str], n: int) -> bool:
    return n < len(lines) and re.match(r"^\s*\|?\s*:?-{2,}", lines[n]) is not None
