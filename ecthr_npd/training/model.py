"""The Facts-text regressor: a pretrained encoder, [CLS] pooling over chunks, a linear head.

``forward(input_ids, attention_mask, chunk_mask, features=None, labels=None)`` with
``input_ids`` / ``attention_mask`` of shape (cases, chunks, tokens): every present chunk
(``chunk_mask``) is encoded, its first-token ([CLS]) state taken, the states of a case's
chunks averaged; with late fusion the structured features pass an MLP (``features`` →
``fusion_hidden`` → GELU → ``fusion_out``) whose output is concatenated before the linear head.
Returns ``{"loss", "logits"}`` (loss: SmoothL1 with ``beta`` on the standardised target, only
with ``labels``); ``logits`` is one standardised log1p prediction per case.
"""

from __future__ import annotations

import inspect

import torch
from torch import nn


class TextRegressor(nn.Module):
    """See the module docstring. ``feature_size`` 0: text only (no fusion branch)."""

    def __init__(self, encoder: nn.Module, *, feature_size: int = 0, fusion_hidden: int = 256,
                 fusion_out: int = 768, beta: float = 1.0) -> None:
        super().__init__()
        self.encoder = encoder
        hidden = encoder.config.hidden_size
        self.fusion = (nn.Sequential(nn.Linear(feature_size, fusion_hidden), nn.GELU(),
                                     nn.Linear(fusion_hidden, fusion_out))
                       if feature_size else None)
        self.head = nn.Linear(hidden + (fusion_out if feature_size else 0), 1)
        self.loss = nn.SmoothL1Loss(beta=beta)
        self._global_attention = "global_attention_mask" in inspect.signature(
            encoder.forward).parameters

    def activation_checkpointing_enable(self, activation_checkpointing_kwargs=None, **kwargs):
        """Checkpoint the encoder's layers (what ``Trainer`` calls for ``--gradient-checkpointing``)."""
        if hasattr(self.encoder, "activation_checkpointing_enable"):
            self.encoder.activation_checkpointing_enable(
                activation_checkpointing_kwargs=activation_checkpointing_kwargs, **kwargs)
        else:
            self.encoder.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs=activation_checkpointing_kwargs)

    def _cls(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
             chunk_mask: torch.Tensor) -> torch.Tensor:
        """Mean [CLS] state over each case's present chunks: (cases, hidden)."""
        cases, chunks, length = input_ids.shape
        present = chunk_mask.reshape(-1).bool()
        ids = input_ids.reshape(cases * chunks, length)[present]
        mask = attention_mask.reshape(cases * chunks, length)[present]
        extra = {}
        if self._global_attention:  # Longformer: [CLS] attends to and is seen by every token
            extra["global_attention_mask"] = torch.zeros_like(mask)
            extra["global_attention_mask"][:, 0] = 1
        states = self.encoder(input_ids=ids, attention_mask=mask, **extra).last_hidden_state[:, 0]
        pooled = states.new_zeros((cases * chunks, states.shape[-1]))
        pooled[present] = states
        weights = chunk_mask.to(states.dtype)
        return (pooled.reshape(cases, chunks, -1) * weights[..., None]).sum(1) / weights.sum(
            1, keepdim=True).clamp(min=1)

    def forward(self, input_ids, attention_mask, chunk_mask, features=None, labels=None):
        pooled = self._cls(input_ids, attention_mask, chunk_mask)
        if self.fusion is not None:
            if features is None:
                raise ValueError("late fusion needs the structured features")
            pooled = torch.cat([pooled, self.fusion(features.to(pooled.dtype))], dim=-1)
        logits = self.head(pooled).squeeze(-1).float()
        if labels is None:
            return {"logits": logits}
        return {"loss": self.loss(logits, labels.float()), "logits": logits}
