"""Tiny models for the training tests, built offline: a tokenizer trained here with the
``tokenizers`` library on the synthetic text, and few-layer encoders / causal LMs from configs.

Also writes the ``facts`` config (``data/facts/<split>.parquet``) into a synthetic ECtHR-NPD
folder, with short generated texts whose words carry a signal about the award.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ENCODER_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
CAUSAL_SPECIALS = ["<pad>", "<unk>", "<|im_end|>", "<|system|>", "<|user|>", "<|assistant|>"]
#: A chat template of the tiny causal LM (what a real model's tokenizer ships).
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|im_end|> "
                 "{% endfor %}{% if add_generation_prompt %}<|assistant|> {% endif %}")
FILLER = ("the applicant complained that the authorities had failed to act within a reasonable "
          "time and the court examined the detention conditions of the prison where he stayed "
          "for several months before the domestic courts decided on his appeal").split()
LEVELS = ("nothing", "little", "moderate", "serious", "grave")


def train_tokenizer(texts: list[str], folder: Path, *, causal: bool = False, vocab: int = 400):
    """A word-level fast tokenizer trained on ``texts``, saved to ``folder``; returns it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = CAUSAL_SPECIALS if causal else ENCODER_SPECIALS
    unk = specials[1]
    core = Tokenizer(models.WordLevel(unk_token=unk))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.decoder = decoders.WordPiece(prefix="##")
    core.train_from_iterator(texts, trainers.WordLevelTrainer(vocab_size=vocab,
                                                              special_tokens=specials))
    if causal:
        tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>",
                                            unk_token=unk, eos_token="<|im_end|>")
        tokenizer.chat_template = CHAT_TEMPLATE
    else:
        core.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", special_tokens=[("[CLS]", core.token_to_id("[CLS]")),
                                                     ("[SEP]", core.token_to_id("[SEP]"))])
        tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="[PAD]",
                                            unk_token=unk, cls_token="[CLS]", sep_token="[SEP]",
                                            mask_token="[MASK]")
    tokenizer.save_pretrained(folder)
    return tokenizer


def tiny_encoder(texts: list[str], folder: Path, *, kind: str = "bert") -> Path:
    """A 2-layer encoder (``bert`` or ``modernbert``) with hidden size 32, random weights."""
    import torch
    from transformers import AutoModel, BertConfig, ModernBertConfig

    tokenizer = train_tokenizer(texts, folder)
    common = dict(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                  num_hidden_layers=2, num_attention_heads=2, max_position_embeddings=512,
                  pad_token_id=tokenizer.pad_token_id)
    if kind == "modernbert":
        config = ModernBertConfig(**common, local_attention=16, global_attn_every_n_layers=2,
                                  cls_token_id=tokenizer.cls_token_id,
                                  sep_token_id=tokenizer.sep_token_id)
    else:
        config = BertConfig(**common)
    torch.manual_seed(0)
    AutoModel.from_config(config).save_pretrained(folder)
    return folder


def tiny_causal_lm(texts: list[str], folder: Path) -> Path:
    """A 2-layer Qwen2-style causal LM (q/k/v/o/gate/up/down projections), hidden size 32."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    tokenizer = train_tokenizer(texts, folder, causal=True, vocab=600)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                         max_position_embeddings=1024, tie_word_embeddings=True,
                         pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                         bos_token_id=None)
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(config).save_pretrained(folder)
    return folder


def facts_text(case_id: str, award: float, words: int = 40) -> str:
    """A short Facts text: filler words chosen from the case id, plus a level word repeated
    according to the award (so a model can learn something)."""
    rng = np.random.default_rng(int(hashlib.sha256(case_id.encode()).hexdigest()[:8], 16))
    level = LEVELS[min(int(np.log1p(award) // 2.2), len(LEVELS) - 1)]
    body = list(rng.choice(FILLER, size=words))
    for position in rng.choice(words, size=6, replace=False):
        body[position] = level
    return " ".join(body)


def write_facts(folder: Path) -> dict[str, list[str]]:
    """Write ``folder/data/facts/<split>.parquet`` for a built synthetic ECtHR-NPD folder;
    returns the texts per split."""
    texts = {}
    for split in ("train", "validation", "test"):
        table = pq.read_table(folder / "data" / "default" / f"{split}.parquet",
                              columns=["case_id", "y_amount_eur"])
        ids = table.column("case_id").to_pylist()
        awards = table.column("y_amount_eur").to_pylist()
        texts[split] = [facts_text(i, float(a)) for i, a in zip(ids, awards, strict=True)]
        out = folder / "data" / "facts" / f"{split}.parquet"
        out.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table({
            "case_id": ids, "facts_text": texts[split],
            "source_document_sha256": [hashlib.sha256(t.encode()).hexdigest() for t in texts[split]],
            "source_anchor": ["FACTS paragraphs 1-20"] * len(ids)}), out)
    return texts
