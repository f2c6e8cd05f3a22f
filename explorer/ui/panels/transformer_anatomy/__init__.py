"""The Transformer anatomy panel package (book §11.7.1–11.7.4)."""
