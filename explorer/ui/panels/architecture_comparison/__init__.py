"""The CNN vs RNN vs self-attention panel package (book §11.6.2)."""
