"""Input truncation by a model's own tokens: a local tokenizer given as ``--tokenizer PATH``.

``PATH`` is a ``tokenizer.json`` file or a folder holding one (read with the ``tokenizers``
package), or a Hugging Face model folder (read with ``transformers``, local files only — no
network). Without either package installed the option is refused in one line.
:func:`load_model_tokenizer` reads a model folder with ``transformers`` only (the command
names the extra that brings it); :func:`tokenizer_fingerprint` is what a manifest records of
the tokenizer, :meth:`LocalTokenizer.cut` the cut at a token boundary.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from courtbench.errors import CourtbenchError

#: The files that define a Hugging Face tokenizer (hashed by :func:`tokenizer_fingerprint`;
#: the model's weights are not: they do not change how a text is cut).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                   "added_tokens.json", "vocab.txt", "vocab.json", "merges.txt",
                   "tokenizer.model", "spiece.model", "sentencepiece.bpe.model",
                   "chat_template.jinja", "chat_template.json")


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
            # verbose=False: no "longer than the model's maximum" warning, nothing runs the model
            offsets = self._tokenizer(text, add_special_tokens=False, verbose=False,
                                      return_offsets_mapping=True)["offset_mapping"]
        return None if len(offsets) <= n else offsets[n - 1][1]

    def cut(self, text: str, n: int) -> tuple[str, bool]:
        """(``text`` up to the end of its ``n``-th token, whether it was longer). The cut is
        at a token boundary of the original characters — what decoding the first ``n``
        tokens gives, without the tokenizer's normalisation (lowercasing, accents, spaces)."""
        end = self.end_of_tokens(text, n)
        return (text, False) if end is None else (text[:end], True)


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


def load_model_tokenizer(path: Path, option: str = "--tokenizer", *,
                         install: str = "pip install transformers") -> LocalTokenizer:
    """The tokenizer of the local Hugging Face folder ``path``, read with
    ``transformers.AutoTokenizer`` (local files only); CourtbenchError (one line) when it is
    no folder, transformers is missing (``install`` says how to add it) or it cannot be read."""
    if not path.is_dir():
        raise CourtbenchError(f"{option} {path}: {'not a folder' if path.exists() else 'no such folder'}"
                              "; expected a local Hugging Face tokenizer or model folder "
                              "(tokenizer.json, tokenizer_config.json)")
    return _transformers_tokenizer(path, option, f"needs transformers ({install})")


def tokenizer_fingerprint(path: Path) -> dict[str, Any]:
    """``{"name", "sha256", "files"}`` of a tokenizer: the folder's (or file's) name, the
    sha256 over each of its :data:`TOKENIZER_FILES` in name order (name, NUL, sha256 of the
    content, newline) and those names."""
    files = [path] if path.is_file() else [path / name for name in sorted(TOKENIZER_FILES)
                                           if (path / name).is_file()]
    digest = hashlib.sha256()
    for file in files:
        digest.update(f"{file.name}\0{hashlib.sha256(file.read_bytes()).hexdigest()}\n".encode())
    return {"name": path.name, "sha256": digest.hexdigest(), "files": [f.name for f in files]}


def _transformers_tokenizer(path: Path, option: str,
                            missing: str = "needs the `tokenizers` package (for a "
                                           "tokenizer.json) or `transformers` (for a model "
                                           "folder); pip install tokenizers") -> LocalTokenizer:
    try:
        import transformers
    except ImportError:
        raise CourtbenchError(f"{option} {path}: {missing}") from None
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
