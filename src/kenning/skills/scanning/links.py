"""Links and images the agent is told to fill with data: a way out that needs no command.

A model that renders ``![x](https://host/p.png?d=…)`` or opens a link makes a request to that
host; a skill that tells it to put the conversation, a token or a file into that URL sends them
there. The rule reads a paragraph of Markdown: a URL with a query (or a placeholder in its path),
words that tell the model to fill it in (replace, substitute, in place of, URL-encoded, append),
and what goes in:

    conversation  the user's messages, the conversation, the system prompt: critical
    a secret      a token, key, password or ``$…_TOKEN`` with an action by the model (open,
                  fetch, render, visit, load, browse): high
"""

from __future__ import annotations

import re

from .markdown import fences, paragraphs
from .model import Finding, short
from .rules import CONVERSATION

_URL = re.compile(r"https?://[^\s)\"'<>]+(?:\?[^\s)\"'<>]*=|/[A-Z_]{4,}\b)[^\s)\"'<>]*")
_FILL = re.compile(r"\b(?:replac\w*|substitut\w*|in\s+place\s+of|fill(?:ing)?\s+in|url-?encod\w*|append\w*|"
                   r"insert\w*)\b|替换|填入|填上|代入|附加|编码后", re.IGNORECASE)
_CHAT = re.compile(CONVERSATION + r"|\b(?:user'?s|last|previous|recent)\s+(?:\w+\s+){0,2}messages?\b|用户(?:的)?(?:消息|输入|提问)",
                   re.IGNORECASE)
_SECRET = re.compile(r"\$\{?[A-Z_]*(?:TOKEN|KEY|SECRET|PASSWORD|PASS)\w*|\b(?:token|api[ _-]?key|password|secret|"
                     r"credentials?|cookies?)\b|令牌|密钥|密码|凭据", re.IGNORECASE)
_ACT = re.compile(r"\b(?:open|fetch|render|visit|load|browse|request|call|display|show)\b|打开|访问|渲染|请求|加载",
                  re.IGNORECASE)


def findings(rel: str, text: str) -> list[Finding]:
    """The paragraphs of a Markdown file that have the model put data into a URL."""
    out: list[Finding] = []
    previous = ""
    for start, para in paragraphs(text, fences(text)):
        url = _URL.search(para)
        # the instruction may stand in the paragraph before the link ("render this image, with …:")
        said, previous = previous + "\n" + para, para
        if url is None or not _FILL.search(said):
            continue
        line = start + para.count("\n", 0, url.start())
        if _CHAT.search(said):
            out.append(Finding("exfiltration", "critical", rel, line, short(url.group()),
                               "tells the model to put the conversation into a URL it requests (a link or an "
                               "image), which sends it to that host"))
        elif _SECRET.search(said) and _ACT.search(said):
            out.append(Finding("exfiltration", "high", rel, line, short(url.group()),
                               "tells the model to put a secret into a URL it requests, which sends it to that host"))
    return out
