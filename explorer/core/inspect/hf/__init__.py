"""Hugging Face model folders (the optional [hf] extra) behind the inspectable-model interface."""
