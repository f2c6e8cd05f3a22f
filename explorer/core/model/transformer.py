"""The book's encoder–decoder Transformer (d2l §11.7): config, AddNorm/FFN blocks, encoder, decoder, model.

Post-LN by default, exactly as the book; ``norm_first=True`` gives the Pre-LN variant (with a final
LayerNorm). Attention maps are returned on request (``need_weights=True``), never stored on modules.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor, nn

from explorer.core.checks import is_number, is_whole
from explorer.core.model.attention import MultiHeadAttention, dropout
from explorer.core.model.positional import PositionalEncoding, building_on_meta


#: Deepest model accepted: far past the book's 2 layers, yet quick to describe (shapes only) before building it.
MAX_LAYERS = 256


class ConfigError(ValueError):
    """An impossible configuration; the message is fit to show to a user as it is."""


def _check_int(name: str, value: Any, minimum: int) -> None:
    if not is_whole(value):
        raise ConfigError(f"{name} must be a whole number, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")


def checked_mapping(cls: type, data: Any, what: str) -> dict[str, Any]:
    """A copy of ``data`` after checking it is a mapping naming only fields of the dataclass ``cls``."""
    if not isinstance(data, dict):
        raise ConfigError(f"a {what} configuration must be a mapping, got {type(data).__name__}")
    unknown = sorted(set(data) - {f.name for f in dataclasses.fields(cls)})
    if unknown:
        raise ConfigError(f"unknown {what} setting(s): {', '.join(unknown)}")
    return dict(data)


@dataclass
class TransformerConfig:
    """Hyper-parameters of the model (defaults: the book's §11.7 settings)."""

    num_hiddens: int = 32
    num_layers: int = 2
    num_heads: int = 4
    ffn_num_hiddens: int = 64
    dropout: float = 0.1
    norm_first: bool = False
    max_len: int = 1000

    def validate(self) -> TransformerConfig:
        """Raise :class:`ConfigError` naming the first bad field; return ``self`` when all is well."""
        _check_int("num_hiddens", self.num_hiddens, 1)
        _check_int("num_layers", self.num_layers, 1)
        if self.num_layers > MAX_LAYERS:
            raise ConfigError(f"num_layers must be at most {MAX_LAYERS}, got {self.num_layers}")
        _check_int("num_heads", self.num_heads, 1)
        _check_int("ffn_num_hiddens", self.ffn_num_hiddens, 1)
        _check_int("max_len", self.max_len, 1)
        if self.num_hiddens % self.num_heads:
            raise ConfigError(f"num_hiddens ({self.num_hiddens}) must be divisible by num_heads "
                              f"({self.num_heads}): each head gets num_hiddens / num_heads dimensions")
        if not is_number(self.dropout) or not 0.0 <= self.dropout < 1.0:
            raise ConfigError(f"dropout must be a number in [0, 1), got {self.dropout!r}")
        if not isinstance(self.norm_first, bool):
            raise ConfigError(f"norm_first must be true or false, got {self.norm_first!r}")
        return self

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (for checkpoints)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TransformerConfig:
        """Build and validate a config from :meth:`to_dict` output; unknown keys are an error."""
        values = checked_mapping(cls, data, "model")
        if isinstance(values.get("dropout"), int) and not isinstance(values.get("dropout"), bool):
            values["dropout"] = float(values["dropout"])
        return cls(**values).validate()


def estimate_parameters(config: TransformerConfig, src_vocab_size: int, tgt_vocab_size: int) -> tuple[int, int]:
    """``(parameters, buffer bytes)`` of ``Seq2SeqTransformer(config, …)``, counted without building it.

    Embeddings, per layer the attention projections (4 d², no bias), the FFN and the LayerNorms (2 per encoder
    block, 3 per decoder block, plus a final one each with ``norm_first``), the output layer, and the two
    float32 positional tables ``(max_len, d)``.
    """
    d, f, layers = config.num_hiddens, config.ffn_num_hiddens, config.num_layers
    ffn = 2 * d * f + f + d
    encoder_block, decoder_block = 4 * d * d + ffn + 2 * 2 * d, 8 * d * d + ffn + 3 * 2 * d
    params = (src_vocab_size + tgt_vocab_size) * d + layers * (encoder_block + decoder_block) \
        + d * tgt_vocab_size + tgt_vocab_size + (2 * 2 * d if config.norm_first else 0)
    return params, 2 * config.max_len * d * 4


@dataclass
class AttentionMaps:
    """Attention weights of one forward pass, one ``(B, h, Tq, Tk)`` tensor per layer and kind."""

    encoder: list[Tensor] = field(default_factory=list)  # encoder self-attention
    decoder: list[Tensor] = field(default_factory=list)  # decoder (masked) self-attention
    cross: list[Tensor] = field(default_factory=list)

    def cropped_numpy(self, index: int, src_len: int, tgt_len: int) -> dict[str, Any]:
        """Stacked float32 numpy copies for batch item ``index``, cropped to its valid tokens.

        Returns ``{"encoder": (L, h, Ts, Ts), "decoder": (L, h, Tt, Tt), "cross": (L, h, Tt, Ts)}`` (the keys are
        :data:`~explorer.core.choices.ATTENTION_KINDS`).
        """
        def stack(maps: list[Tensor], rows: int, cols: int) -> Any:
            out = torch.stack([m[index, :, :rows, :cols] for m in maps])  # (L, h, rows, cols)
            return out.detach().to("cpu", torch.float32).numpy().copy()

        return {"encoder": stack(self.encoder, src_len, src_len),
                "decoder": stack(self.decoder, tgt_len, tgt_len),
                "cross": stack(self.cross, tgt_len, src_len)}


class PositionWiseFFN(nn.Module):
    """Position-wise feed-forward network: Linear → ReLU → Linear, applied to every position."""

    def __init__(self, num_hiddens: int, ffn_num_hiddens: int) -> None:
        super().__init__()
        self.dense1 = nn.Linear(num_hiddens, ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.Linear(ffn_num_hiddens, num_hiddens)

    def forward(self, X: Tensor) -> Tensor:
        """(B, T, d) -> (B, T, d)."""
        return self.dense2(self.relu(self.dense1(X)))


class AddNorm(nn.Module):
    """Residual connection with dropout on the sublayer output, then LayerNorm: ``LN(X + dropout(Y))``."""

    def __init__(self, num_hiddens: int, dropout: float) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(num_hiddens)

    def forward(self, X: Tensor, Y: Tensor) -> Tensor:
        """X, Y (B, T, d) -> (B, T, d)."""
        return self.ln(dropout(Y, self.dropout.p, self.training) + X)

    def residual(self, X: Tensor, Y: Tensor) -> Tensor:
        """Pre-LN form: ``X + dropout(Y)`` (the norm was applied to the sublayer's input)."""
        return X + dropout(Y, self.dropout.p, self.training)


class EncoderBlock(nn.Module):
    """Self-attention and FFN sublayers, each wrapped in AddNorm."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        d = config.num_hiddens
        self.norm_first = config.norm_first
        self.attention = MultiHeadAttention(d, config.num_heads, config.dropout, bias=False)
        self.addnorm1 = AddNorm(d, config.dropout)
        self.ffn = PositionWiseFFN(d, config.ffn_num_hiddens)
        self.addnorm2 = AddNorm(d, config.dropout)

    def forward(self, X: Tensor, attn_bias: Tensor, need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
        """X (B, T, d), additive mask (B, 1, 1, T) -> (B, T, d) and weights (B, h, T, T) | None."""
        if self.norm_first:
            H = self.addnorm1.ln(X)
            A, weights = self.attention(H, H, H, need_weights=need_weights, attn_bias=attn_bias)
            X = self.addnorm1.residual(X, A)
            return self.addnorm2.residual(X, self.ffn(self.addnorm2.ln(X))), weights
        A, weights = self.attention(X, X, X, need_weights=need_weights, attn_bias=attn_bias)
        Y = self.addnorm1(X, A)
        return self.addnorm2(Y, self.ffn(Y)), weights


class DecoderBlock(nn.Module):
    """Masked self-attention, cross-attention to the encoder output, and FFN, each wrapped in AddNorm."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        d = config.num_hiddens
        self.norm_first = config.norm_first
        self.attention1 = MultiHeadAttention(d, config.num_heads, config.dropout, bias=False)
        self.addnorm1 = AddNorm(d, config.dropout)
        self.attention2 = MultiHeadAttention(d, config.num_heads, config.dropout, bias=False)
        self.addnorm2 = AddNorm(d, config.dropout)
        self.ffn = PositionWiseFFN(d, config.ffn_num_hiddens)
        self.addnorm3 = AddNorm(d, config.dropout)

    def forward(self, X: Tensor, enc_out: Tensor, self_bias: Tensor | None, cross_bias: Tensor,
                past: Tensor | None = None, need_weights: bool = False
                ) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None]:
        """One decoder block.

        Parameters
        ----------
        X : (B, T, d) decoder input of this block (T new positions).
        enc_out : (B, Ts, d); cross_bias : (B, 1, 1, Ts) additive source mask.
        self_bias : additive causal mask (1, 1, T, T) for a full pass; None when decoding incrementally.
        past : (B, t, d) self-attention keys/values of the earlier positions (incremental decoding) or None.

        Returns
        -------
        output (B, T, d); the self-attention keys/values to cache, (B, t + T, d); self weights
        (B, h, T, t + T) and cross weights (B, h, T, Ts), or None.
        """
        H = self.addnorm1.ln(X) if self.norm_first else X
        kv = H if past is None else torch.cat((past, H), dim=1)  # (B, t + T, d)
        A, self_w = self.attention1(H, kv, kv, need_weights=need_weights, attn_bias=self_bias)
        if self.norm_first:
            Y = self.addnorm1.residual(X, A)
            C, cross_w = self.attention2(self.addnorm2.ln(Y), enc_out, enc_out,
                                         need_weights=need_weights, attn_bias=cross_bias)
            Z = self.addnorm2.residual(Y, C)
            return self.addnorm3.residual(Z, self.ffn(self.addnorm3.ln(Z))), kv, self_w, cross_w
        Y = self.addnorm1(X, A)
        C, cross_w = self.attention2(Y, enc_out, enc_out, need_weights=need_weights, attn_bias=cross_bias)
        Z = self.addnorm2(Y, C)
        return self.addnorm3(Z, self.ffn(Z)), kv, self_w, cross_w


def _embedding(vocab_size: int, dim: int) -> nn.Embedding:
    """``nn.Embedding(vocab_size, dim)``, its weights drawn as torch draws them; not drawn at all while
    :func:`~explorer.core.model.positional.building_on_meta` (``normal_`` there imports ``torch._dynamo``)."""
    if building_on_meta():
        return nn.Embedding(vocab_size, dim, _weight=torch.empty(vocab_size, dim))
    return nn.Embedding(vocab_size, dim)


def _embed(embedding: nn.Embedding, pos: PositionalEncoding, ids: Tensor, scale: float, start: int = 0) -> Tensor:
    """``dropout(embedding(ids) × √d + P[start:start+T])``, (B, T) -> (B, T, d)."""
    steps = ids.shape[1]
    if start + steps > pos.max_len:
        raise ValueError(f"sequence of {start + steps} positions exceeds the positional encoding's limit "
                         f"of {pos.max_len}")
    X = embedding(ids) * scale + pos.P[:, start:start + steps]  # (B, T, d)
    return dropout(X, pos.dropout.p, pos.training)


class TransformerEncoder(nn.Module):
    """Embedding × √d + positional encoding, then ``num_layers`` encoder blocks."""

    def __init__(self, config: TransformerConfig, vocab_size: int) -> None:
        super().__init__()
        self.scale = math.sqrt(config.num_hiddens)
        self.embedding = _embedding(vocab_size, config.num_hiddens)
        self.pos_encoding = PositionalEncoding(config.num_hiddens, config.dropout, config.max_len)
        self.blocks = nn.ModuleList(EncoderBlock(config) for _ in range(config.num_layers))
        self.final_norm = nn.LayerNorm(config.num_hiddens) if config.norm_first else None

    def forward(self, src: Tensor, src_bias: Tensor, need_weights: bool = False) -> tuple[Tensor, list[Tensor]]:
        """src (B, Ts) ids, src_bias (B, 1, 1, Ts) -> encoder output (B, Ts, d) and per-layer weights."""
        X = _embed(self.embedding, self.pos_encoding, src, self.scale)
        maps: list[Tensor] = []
        for block in self.blocks:
            X, weights = block(X, src_bias, need_weights)
            if weights is not None:
                maps.append(weights)
        if self.final_norm is not None:
            X = self.final_norm(X)
        return X, maps


class TransformerDecoder(nn.Module):
    """Embedding × √d + positional encoding, ``num_layers`` decoder blocks, and the output Linear."""

    def __init__(self, config: TransformerConfig, vocab_size: int) -> None:
        super().__init__()
        self.scale = math.sqrt(config.num_hiddens)
        self.embedding = _embedding(vocab_size, config.num_hiddens)
        self.pos_encoding = PositionalEncoding(config.num_hiddens, config.dropout, config.max_len)
        self.blocks = nn.ModuleList(DecoderBlock(config) for _ in range(config.num_layers))
        self.final_norm = nn.LayerNorm(config.num_hiddens) if config.norm_first else None
        self.dense = nn.Linear(config.num_hiddens, vocab_size)

    def forward(self, dec_input: Tensor, enc_out: Tensor, cross_bias: Tensor, self_bias: Tensor | None,
                past: list[Tensor] | None = None, need_weights: bool = False, rows: Tensor | None = None
                ) -> tuple[Tensor, list[Tensor], list[Tensor], list[Tensor]]:
        """dec_input (B, T) ids at positions ``t .. t+T-1`` (t = cached length) -> logits (B, T, V) (or (M, V) for
        the flat positions ``rows`` (M,) of the (B, T) grid only), the new per-layer cache (B, t + T, d), self
        weights and cross weights per layer."""
        start = 0 if past is None else past[0].shape[1]
        X = _embed(self.embedding, self.pos_encoding, dec_input, self.scale, start)
        cache: list[Tensor] = []
        self_maps: list[Tensor] = []
        cross_maps: list[Tensor] = []
        for i, block in enumerate(self.blocks):
            X, kv, self_w, cross_w = block(X, enc_out, self_bias, cross_bias,
                                           None if past is None else past[i], need_weights)
            cache.append(kv)
            if self_w is not None and cross_w is not None:
                self_maps.append(self_w)
                cross_maps.append(cross_w)
        if self.final_norm is not None:
            X = self.final_norm(X)
        if rows is not None:  # the output layer costs the most: only the positions asked for pay for it
            X = X.reshape(-1, X.shape[-1]).index_select(0, rows)  # (B, T, d) -> (M, d)
        return self.dense(X), cache, self_maps, cross_maps


# Masked scores get -inf: every query of this model keeps at least one key (<eos> is always a valid
# source token; a decoder position always sees itself), so no row is all -inf, and the CPU's vectorised
# exp is ~2x faster on -inf than on large finite negatives. Masked weights are exactly 0 either way.
NEG_INF = float("-inf")


def causal_bias(num_steps: int, device: torch.device, dtype: torch.dtype = torch.float32) -> Tensor:
    """Additive causal mask (1, 1, T, T): query i sees keys 0..i (the book's ``dec_valid_lens``)."""
    future = torch.ones(num_steps, num_steps, dtype=torch.bool, device=device).triu_(1)
    return torch.zeros(num_steps, num_steps, dtype=dtype, device=device).masked_fill_(
        future, NEG_INF)[None, None]  # (1, 1, T, T)


def source_bias(src_valid_len: Tensor, num_keys: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """Additive key mask (B, 1, 1, Ts): 0 for the first ``src_valid_len`` keys, -inf after. Lengths must be ≥ 1."""
    lengths = src_valid_len.clamp(min=1)  # an empty source still attends to its first position, never NaN
    padded = torch.arange(num_keys, device=src_valid_len.device)[None, :] >= lengths[:, None]  # (B, Ts)
    return torch.zeros(padded.shape, dtype=dtype, device=src_valid_len.device).masked_fill_(
        padded, NEG_INF)[:, None, None, :]  # (B, 1, 1, Ts)


class Seq2SeqTransformer(nn.Module):
    """The book's Transformer for sequence-to-sequence learning, Xavier-initialised as the book.

    Parameters
    ----------
    config : a :class:`TransformerConfig` (validated here).
    src_vocab_size, tgt_vocab_size : vocabulary sizes.
    """

    def __init__(self, config: TransformerConfig, src_vocab_size: int, tgt_vocab_size: int) -> None:
        super().__init__()
        config.validate()
        _check_int("src_vocab_size", src_vocab_size, 1)
        _check_int("tgt_vocab_size", tgt_vocab_size, 1)
        self.config = config
        self.encoder = TransformerEncoder(config, src_vocab_size)
        self.decoder = TransformerDecoder(config, tgt_vocab_size)
        self._causal: dict[tuple[int, torch.device, torch.dtype], Tensor] = {}
        for module in self.modules():
            if type(module) is nn.Linear:  # the book's xavier_init_weights
                nn.init.xavier_uniform_(module.weight)

    @classmethod
    def from_weights(cls, config: TransformerConfig, src_vocab_size: int, tgt_vocab_size: int,
                     tensors: Mapping[str, Tensor]) -> Seq2SeqTransformer:
        """The model holding ``tensors`` (every parameter and saved buffer, as ``state_dict`` names them), built
        without drawing random weights first: shapes on the ``meta`` device, then the tensors themselves (cast to
        the model's dtypes, shared when they already match), then the positional encodings computed. A 512-wide,
        6-layer model's initialisation took ~0.3–0.5 s of the 0.5 s its rebuild cost. Raises what
        ``load_state_dict(strict=True)`` raises for missing, extra or misshapen tensors."""
        with torch.device("meta"):
            model = cls(config, src_vocab_size, tgt_vocab_size)
        dtypes = {name: t.dtype for name, t in model.state_dict().items()}
        model.load_state_dict({name: t.to(dtypes[name]) if name in dtypes else t for name, t in tensors.items()},
                              strict=True, assign=True)
        for module in model.modules():
            if isinstance(module, PositionalEncoding):  # not saved: computed
                module.compute_on_cpu()
        left = [name for name, t in (*model.named_parameters(), *model.named_buffers()) if t.is_meta]
        if left:
            raise ValueError(f"the model's {left[0]!r} is neither saved nor computed")
        return model

    def causal_bias(self, num_steps: int, device: torch.device, dtype: torch.dtype = torch.float32) -> Tensor:
        """Cached additive causal mask (1, 1, T, T) (built once per length, device and dtype)."""
        key = (num_steps, device, dtype)
        bias = self._causal.get(key)
        if bias is None:
            bias = self._causal[key] = causal_bias(num_steps, device, dtype)
        return bias

    def source_bias(self, src_valid_len: Tensor, num_keys: int) -> Tensor:
        """Additive key mask (B, 1, 1, Ts) from the source valid lengths (B,), each ≥ 1."""
        return source_bias(src_valid_len, num_keys)

    def encode(self, src: Tensor, src_valid_len: Tensor, need_weights: bool = False
               ) -> tuple[Tensor, Tensor, list[Tensor]]:
        """src (B, Ts), src_valid_len (B,) -> encoder output (B, Ts, d), source mask (B, 1, 1, Ts),
        encoder self-attention weights per layer (empty unless ``need_weights``)."""
        src_bias = self.source_bias(src_valid_len, src.shape[1])
        enc_out, maps = self.encoder(src, src_bias, need_weights)
        return enc_out, src_bias, maps

    def forward(self, src: Tensor, src_valid_len: Tensor, dec_input: Tensor, need_weights: bool = False,
                rows: Tensor | None = None) -> tuple[Tensor, AttentionMaps | None]:
        """Teacher-forced pass.

        Parameters
        ----------
        src : (B, Ts) source ids; src_valid_len : (B,) source lengths (incl. ``<eos>``).
        dec_input : (B, Tt) decoder input ids (``<bos>`` followed by the shifted target).
        need_weights : also return every attention map.
        rows : (M,) flat indices into the (B, Tt) decoder positions (row-major) whose logits are wanted, e.g.
            the target tokens of a training batch; None: every position.

        Returns
        -------
        logits (B, Tt, V_tgt) (or (M, V_tgt) for ``rows``) and :class:`AttentionMaps` (or None).
        """
        enc_out, src_bias, enc_maps = self.encode(src, src_valid_len, need_weights)
        self_bias = self.causal_bias(dec_input.shape[1], dec_input.device)
        logits, _, self_maps, cross_maps = self.decoder(dec_input, enc_out, src_bias, self_bias,
                                                        need_weights=need_weights, rows=rows)
        if not need_weights:
            return logits, None
        return logits, AttentionMaps(enc_maps, self_maps, cross_maps)
