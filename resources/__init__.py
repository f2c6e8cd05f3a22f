"""Bundled data files (corpus, icons, stylesheets); located through ``explorer.paths``."""
