"""One panel per section of the attention chapter."""
