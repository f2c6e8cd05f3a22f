"""The settings of attention rollout and flow, each defined once, in a module light enough for the CLI's parser
(no torch): which kinds and methods there are, the paper's residual weight and how long flow may take."""
from __future__ import annotations

#: The kinds rollout and flow are defined for: self-attention, where queries and keys are the same tokens.
SELF_KINDS: tuple[str, ...] = ("encoder", "decoder")
#: The two ways of following attention through the layers, as the CLI's ``--method`` and the grid's maps name them.
METHODS: tuple[str, ...] = ("rollout", "flow")
#: The paper's weight of the attention against the residual connection: Ã = r·A + (1 − r)·I.
DEFAULT_RESIDUAL = 0.5
#: Flow longer than this (estimated) is refused with the estimate, unless the caller allows more.
FLOW_LIMIT_S = 30.0
