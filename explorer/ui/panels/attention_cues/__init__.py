"""The attention cues panel package (book §11.1)."""
