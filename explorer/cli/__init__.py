"""The headless command line ``attention-explorer-cli`` (book §11.7): one module per command, the shared option
types, and one entry point (:func:`explorer.cli.main.main`). Never imports :mod:`explorer.ui`."""
