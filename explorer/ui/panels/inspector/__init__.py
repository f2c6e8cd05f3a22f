"""The model inspector panel: any model (ours, a run, a Hugging Face folder), Inspect and Debug."""
