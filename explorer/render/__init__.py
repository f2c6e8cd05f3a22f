"""Drawing without windows: colour maps, time-lapse frames painted with QPainter, and the files they are written
to. Shared by the GUI and the CLI; never imports :mod:`explorer.ui` or :mod:`explorer.cli`."""
