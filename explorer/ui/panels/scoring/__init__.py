"""The scoring panel package."""
