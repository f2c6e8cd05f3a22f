"""Models whose attention can be inspected: the interface, open_model, our checkpoints and Hugging Face folders."""
