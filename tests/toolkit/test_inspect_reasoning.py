"""``courtbench.inspect_glue.reasoning.split_reasoning``: ``<think>`` blocks that Inspect leaves
in an answer (cut off, or a closing tag without its opening one) kept apart from the answer."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from courtbench.inspect_glue.reasoning import split_reasoning


@pytest.mark.parametrize("content, reasoning_content, expected", [
    ("plain", None, ("plain", None, False)),
    ("<think>step 1</think>\n\nAnswer.", None, ("Answer.", "step 1", False)),
    ("<THINKING>a</THINKING>B<reasoning>c</reasoning>", None, ("B", "a\n\nc", False)),
    ("dropped open tag</think>Answer", None, ("Answer", "dropped open tag", False)),
    ("Answer <think>cut off", None, ("Answer", "cut off", True)),
    ("Answer.", "  separate field ", ("Answer.", "separate field", False)),
    (None, "only reasoning", (None, "only reasoning", False)),
])
def test_split_reasoning(content, reasoning_content, expected):
    assert split_reasoning(content, reasoning_content) == expected


WORDS = st.sampled_from(["a", "b c", "\n", "<think>", "</think>", "x"])


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=12))
def test_no_tag_survives_and_tag_free_text_is_the_answer(parts):
    """A plain reference: without tags the text is the answer; with tags none is left in
    the answer, and every character of the answer is in the input."""
    text = "".join(parts)
    answer, reasoning, _ = split_reasoning(text)
    if "<" not in text:
        assert (answer, reasoning) == (text.strip(), None)
    assert not re.search(r"</?think>", answer)
    assert set(answer) <= set(text)
