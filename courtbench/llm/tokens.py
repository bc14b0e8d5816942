"""Input truncation by a model's own tokens: a local tokenizer given as ``--tokenizer PATH``.

``PATH`` is a ``tokenizer.json`` file or a folder holding one (read with the ``tokenizers``
package), or a Hugging Face model folder (read with ``transformers``, local files only — no
network). Without either package installed the option is refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from courtbench.errors import CourtbenchError


@dataclass(frozen=True)
class LocalTokenizer:
    """A tokenizer that maps a text to the character offset where its ``n``-th token ends."""

    path: Path
    backend: str
    _tokenizer: Any

    def end_of_tokens(self, text: str, n: int) -> int | None:
        """Character offset after the first ``n`` tokens of ``text``; ``None`` when ``text``
        has at most ``n`` tokens."""
        if self.backend == "tokenizers":
            offsets = self._tokenizer.encode(text, add_special_tokens=False).offsets
        else:
            offsets = self._tokenizer(text, add_special_tokens=False,
                                      return_offsets_mapping=True)["offset_mapping"]
        return None if len(offsets) <= n else offsets[n - 1][1]


def load_tokenizer(path: Path, option: str = "--tokenizer") -> LocalTokenizer:
    """The tokenizer at ``path`` (see the module docstring); CourtbenchError otherwise."""
    json_file = path / "tokenizer.json" if path.is_dir() else path
    if not path.exists():
        raise CourtbenchError(f"{option} {path}: no such file or folder")
    if json_file.is_file():
        try:
            import tokenizers
        except ImportError:
            tokenizers = None
        if tokenizers is not None:
            try:
                return LocalTokenizer(path, "tokenizers", tokenizers.Tokenizer.from_file(str(json_file)))
            except Exception as error:  # noqa: BLE001 - any unreadable tokenizer file
                raise CourtbenchError(f"{option} {json_file}: not a tokenizer file ({error})") from None
    return _transformers_tokenizer(path, option)


def _transformers_tokenizer(path: Path, option: str) -> LocalTokenizer:
    try:
        import transformers
    except ImportError:
        raise CourtbenchError(f"{option} {path}: needs the `tokenizers` package (for a "
                              "tokenizer.json) or `transformers` (for a model folder); "
                              "pip install tokenizers") from None
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True,
                                                               use_fast=True)
    except Exception as error:  # noqa: BLE001 - transformers raises many kinds
        raise CourtbenchError(f"{option} {path}: cannot load a tokenizer from it "
                              f"({type(error).__name__}: {str(error)[:200]})") from None
    if not getattr(tokenizer, "is_fast", False):
        raise CourtbenchError(f"{option} {path}: only fast tokenizers (tokenizer.json) give "
                              "character offsets")
    return LocalTokenizer(path, "transformers", tokenizer)
