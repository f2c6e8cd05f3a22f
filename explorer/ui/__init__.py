"""The Qt desktop application: panels draw what ``explorer.core`` computes."""
