"""Debugging a model: head ablation, explain-a-cell, decoding choices, beam trees, model diffs, head summaries."""
