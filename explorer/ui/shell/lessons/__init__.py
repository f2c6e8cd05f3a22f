"""Lessons: one JSON file with every panel's settings, saved and opened from the File menu."""
