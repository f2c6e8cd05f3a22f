"""The positional panel package."""
