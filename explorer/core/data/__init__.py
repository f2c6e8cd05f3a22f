"""Training data: corpus readers, the text pipeline and vocabulary, synthetic tasks, data sources (d2l §10.5)."""
