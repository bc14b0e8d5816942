"""Reasoning kept apart from a model's answer: ``<think>`` blocks and ``reasoning_content``.

One source for every reader of model answers: the toolkit's model runners (after Inspect has
moved well-formed blocks out, what is left is a block cut off by the token limit or a closing
tag whose opening one the server stripped) and the LLM-judge metric module's client, which
links this file. Standard library only; time linear in the text's length
(``benchmarks/bench_answer_parsing.py``).
"""

from __future__ import annotations

import collections
import re

_REASONING_TAG = re.compile(r"<(/?)(think|thinking|reasoning)(\s*)>", re.I)


def _remove_reasoning_blocks(content: str) -> tuple:
    """``<name>...</name>`` blocks removed in one left-to-right pass (linear time).

    Returns ``(text, block_texts, leftover)``: the text without the blocks, the blocks'
    texts, and the tags left in ``text`` as ``(offset in text, is_close)``.
    """
    tags = [m for m in _REASONING_TAG.finditer(content) if m.group(1) or not m.group(3)]
    closes: dict = collections.defaultdict(list)
    for tag in tags:
        if tag.group(1):
            closes[tag.group(2).lower()].append(tag)
    pointer: dict = collections.defaultdict(int)
    pieces, blocks, leftover, position, length = [], [], [], 0, 0
    for tag in tags:
        if tag.start() < position:
            continue  # inside a block already removed
        name, close = tag.group(2).lower(), None
        if not tag.group(1):
            candidates = closes[name]
            while pointer[name] < len(candidates) and candidates[pointer[name]].start() < tag.end():
                pointer[name] += 1
            close = candidates[pointer[name]] if pointer[name] < len(candidates) else None
        if close is None:
            leftover.append((length + tag.start() - position, bool(tag.group(1)), tag.end() - tag.start()))
            continue
        pieces.append(content[position:tag.start()])
        length += tag.start() - position
        blocks.append(content[tag.end():close.start()].strip())
        position = close.end()
    pieces.append(content[position:])
    return "".join(pieces), blocks, leftover


def split_reasoning(content: str | None, reasoning_content: str | None = None) -> tuple:
    """Separate reasoning from the answer, in time linear in the text's length.

    Removes ``<think>...</think>`` blocks (also ``thinking`` / ``reasoning``); a closing tag
    without an opening one (servers that strip the opening tag) makes everything before it
    reasoning; an opening tag never closed (answer cut) makes everything after it reasoning.

    Returns:
        ``(answer, reasoning, unclosed)``: the answer (``None`` when ``content`` is
        ``None``), the reasoning texts joined by blank lines (``reasoning_content`` first;
        ``None`` when there is none) and whether a block was left open.

    >>> split_reasoning("<think>a?</think>\\nB.", "r")
    ('B.', 'r\\n\\na?', False)
    >>> split_reasoning("<think>never closed")
    ('', 'never closed', True)
    """
    parts = [reasoning_content.strip()] if reasoning_content and reasoning_content.strip() else []
    if content is None:
        return None, "\n\n".join(parts) or None, False
    text, blocks, leftover = _remove_reasoning_blocks(content)
    parts += blocks
    text, leftover = _split_before_last_close(text, leftover, parts)
    text, unclosed = _split_after_first_open(text, leftover, parts)
    reasoning = "\n\n".join(p for p in parts if p) or None
    return text.strip(), reasoning, unclosed


def _split_before_last_close(text: str, leftover: list, parts: list) -> tuple:
    """A stray closing tag: everything before the last one is reasoning (appended to
    ``parts``). Returns ``(text after that tag, leftover tags shifted into it)``."""
    last_close = max((t for t in leftover if t[1]), default=None, key=lambda t: t[0])
    if last_close is None:
        return text, leftover
    parts.append(text[:last_close[0]].strip())
    cut = last_close[0] + last_close[2]
    return text[cut:], [(offset - cut, close, size) for offset, close, size in leftover
                        if offset >= cut]


def _split_after_first_open(text: str, leftover: list, parts: list) -> tuple:
    """An opening tag never closed: everything after the first one is reasoning (appended to
    ``parts``). Returns ``(text before that tag, whether there was one)``."""
    opened = min((t for t in leftover if not t[1]), default=None, key=lambda t: t[0])
    if opened is None:
        return text, False
    parts.append(text[opened[0] + opened[2]:].strip())
    return text[:opened[0]], True
