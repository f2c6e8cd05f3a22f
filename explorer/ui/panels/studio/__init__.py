"""The studio panel package."""
