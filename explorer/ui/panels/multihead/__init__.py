"""The multihead panel package."""
