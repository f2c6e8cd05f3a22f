"""Reusable widgets: heatmaps, plots, labeled sliders, exports."""
