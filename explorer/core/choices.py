"""The fixed choices the whole app shares, each defined once: attention kinds, devices, decoding methods.

The GUI's menus, the CLI's ``choices=`` and the core's checks all read these tuples, so a new choice is added
in one place.
"""
from __future__ import annotations

#: The three groups of attention maps of an encoder–decoder (d2l §11.7): encoder self-attention, decoder
#: self-attention (masked), and the decoder's cross-attention over the encoder's output. Encoder-only and
#: decoder-only models have a subset.
ATTENTION_KINDS: tuple[str, ...] = ("encoder", "decoder", "cross")

#: Where a model runs: ``auto`` picks CUDA, then Apple MPS, then the CPU (DESIGN rule 6).
DEVICE_CHOICES: tuple[str, ...] = ("auto", "cpu", "cuda", "mps")

#: How a model chooses its next token: greedy (d2l §10.7.6), beam search (§10.8), or sampling.
DECODING_METHODS: tuple[str, ...] = ("greedy", "beam", "sample")

#: The methods that need no settings of their own, offered by ``translate`` and a model's ``generate`` (sampling
#: needs a temperature, top-k and top-p: see ``explorer.core.debug.sampling``).
GENERATE_METHODS: tuple[str, ...] = tuple(m for m in DECODING_METHODS if m != "sample")
