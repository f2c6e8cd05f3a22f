"""The book's model: attention (§11.3–11.5), positional encoding (§11.6), the Transformer (§11.7), decoding and BLEU."""
