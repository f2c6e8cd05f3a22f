"""The kernel regression panel package."""
