"""The LoRA adapter of the SLDS recipe and the model folder a run writes.

Targets: the requested projection names that exist among the model's linear layers; a
model with fused projections (``qkv_proj``, ``gate_up_proj``: Phi-3.5) gets those instead of
the parts it lacks. The written folder is either the merged model (base + adapter, loadable by
``transformers`` and ``vllm serve PATH``) or the adapter alone (``vllm serve BASE
--enable-lora --lora-modules NAME=PATH``), with the tokenizer beside it.
"""

from __future__ import annotations

from pathlib import Path

from courtbench.errors import CourtbenchError
from courtbench.hub.atomic import atomic_output_dir

DEFAULT_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
FUSED = {"qkv_proj": ("q_proj", "k_proj", "v_proj"), "gate_up_proj": ("gate_proj", "up_proj")}
MODEL_KIND = "model folder"


def linear_names(model) -> set[str]:
    """Last name component of every linear layer of ``model``."""
    from torch import nn

    return {name.rsplit(".", 1)[-1] for name, module in model.named_modules()
            if isinstance(module, nn.Linear)}


def choose_targets(requested: tuple[str, ...], present: set[str]) -> tuple[list[str], list[str]]:
    """``(targets, absent)``: the requested names the model has (or the fused layer standing
    for absent ones), and the requested names it lacks.

    >>> choose_targets(("q_proj", "k_proj", "o_proj"), {"qkv_proj", "o_proj", "lm_head"})
    (['qkv_proj', 'o_proj'], ['q_proj', 'k_proj'])
    """
    targets = [name for name in requested if name in present]
    absent = [name for name in requested if name not in present]
    for fused, parts in FUSED.items():
        if fused in present and set(parts) & set(absent) and fused not in targets:
            targets.insert(0, fused)
    if not targets:
        raise CourtbenchError(f"--lora-targets {','.join(requested)}: the model has none of "
                              f"these linear layers (it has {', '.join(sorted(present))})")
    return targets, absent


def with_adapter(model, *, rank: int, alpha: int, dropout: float, targets: list[str],
                 checkpointing: bool):
    """``model`` wrapped in a fresh LoRA adapter (peft); only the adapter is trainable."""
    from peft import LoraConfig, get_peft_model

    if checkpointing:
        model.enable_input_require_grads()  # frozen embeddings: keep a gradient path
    config = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules=targets,
                        task_type="CAUSAL_LM", bias="none")
    return get_peft_model(model, config)


def save_model(peft_model, tokenizer, out: Path, *, merged: bool) -> Path:
    """Write the model folder ``out`` atomically (merged weights or the adapter) with the
    tokenizer; returns ``out``."""
    with atomic_output_dir(out, kind=MODEL_KIND) as tmp:
        if merged:
            model = peft_model.merge_and_unload()
            model.config.use_cache = True
            model.save_pretrained(tmp)
        else:
            peft_model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
    return Path(out)
