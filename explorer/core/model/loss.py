"""The book's masked softmax cross-entropy (d2l §10.7.4): the loss of target tokens only, padding left out."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

#: The label of a position that is not scored (PyTorch's ``ignore_index`` default).
IGNORE = -100


def masked_cross_entropy(logits: Tensor, labels: Tensor, valid_len: Tensor | None = None) -> Tensor:
    """Summed cross-entropy of the target tokens, computed in float32.

    ``logits`` (..., V) and ``labels`` (...): every label is scored, except :data:`IGNORE`. With ``valid_len``
    (B,), ``labels`` is (B, T) and positions ``t >= valid_len`` (the padding) are left out.
    """
    if valid_len is not None:
        pad = torch.arange(labels.shape[1], device=labels.device)[None, :] >= valid_len[:, None]  # (B, T)
        labels = labels.masked_fill(pad, IGNORE)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), labels.reshape(-1),  # (N, V), (N,)
                           ignore_index=IGNORE, reduction="sum")
