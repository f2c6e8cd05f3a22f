"""Before Qt starts: is there a display, and can Qt's X11 (xcb) plugin load? Plain words instead of Qt's abort.

Stdlib only and cheap (one ``dlopen`` per library, ~2 ms in all), so it runs before ``QApplication`` on
every start. ``ATTENTION_EXPLORER_EXTRA_XCB_LIBRARY="libname.so.0=package"`` adds one library to the
check (tests use a name that does not exist to see the message on a machine that has every library).
"""
from __future__ import annotations

import ctypes
import os
import sys
from typing import Mapping, Sequence

#: Shared libraries Qt's xcb platform plugin loads (PySide6 6.11's ``libQt6XcbQpa``), and the
#: Debian/Ubuntu package of each. ``libxcb-cursor0`` is the one fresh installs most often lack.
XCB_LIBRARIES: dict[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
}
EXTRA_LIBRARY_ENV = "ATTENTION_EXPLORER_EXTRA_XCB_LIBRARY"

NO_DISPLAY = """\
attention-explorer: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set), so no window can open.
  - Start it from a desktop session (or log in with X forwarding: ssh -X).
  - For headless work use the command line: attention-explorer-cli --help
  - To render every panel to PNG files without a screen:
      QT_QPA_PLATFORM=offscreen attention-explorer --screenshots DIR"""

MISSING_LIBRARIES = """\
attention-explorer: Qt's X11 (xcb) platform plugin needs libraries this system lacks: {names}.
  Install them, e.g. on Debian/Ubuntu:
      sudo apt install {packages}
  (on other systems, install the packages that provide these files), then start attention-explorer again.
  Without a desktop, use attention-explorer-cli, or QT_QPA_PLATFORM=offscreen attention-explorer --screenshots DIR."""


def requested_platform(qt_args: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """The Qt platform asked for by ``-platform NAME`` or ``QT_QPA_PLATFORM`` (its name only), or None."""
    args = list(qt_args)
    for i, arg in enumerate(args):
        if arg in ("-platform", "--platform") and i + 1 < len(args):
            return args[i + 1].split(":", 1)[0].strip() or None
        if arg.startswith(("-platform=", "--platform=")):
            return arg.split("=", 1)[1].split(":", 1)[0].strip() or None
    value = environ.get("QT_QPA_PLATFORM", "").split(";", 1)[0]
    return value.split(":", 1)[0].strip() or None


def missing_libraries(libraries: Mapping[str, str]) -> list[str]:
    """The names in ``libraries`` that the dynamic loader cannot open."""
    missing = []
    for name in libraries:
        try:
            ctypes.CDLL(name, mode=os.RTLD_LAZY)
        except OSError:
            missing.append(name)
    return missing


def xcb_libraries(environ: Mapping[str, str]) -> dict[str, str]:
    """``XCB_LIBRARIES`` plus the one named by ``ATTENTION_EXPLORER_EXTRA_XCB_LIBRARY`` (``name=package``)."""
    libraries = dict(XCB_LIBRARIES)
    extra = environ.get(EXTRA_LIBRARY_ENV, "")
    if extra:
        name, _, package = extra.partition("=")
        libraries[name.strip()] = package.strip() or name.strip()
    return libraries


def startup_problem(qt_args: Sequence[str] = (), environ: Mapping[str, str] | None = None,
                    platform: str = sys.platform) -> str | None:
    """Why Qt could not open a window here, in words for the user, or None when it should start.

    Only Linux/BSD desktops are checked: with no platform asked for and neither ``DISPLAY`` nor
    ``WAYLAND_DISPLAY`` set there is no display; where the xcb plugin will be used, its libraries
    must load. Any other requested platform (``offscreen``, ``wayland``, ``vnc``…) is left to Qt.
    """
    env = os.environ if environ is None else environ
    if platform.startswith(("win", "darwin", "cygwin")):
        return None
    requested = requested_platform(qt_args, env)
    display, wayland = env.get("DISPLAY", "").strip(), env.get("WAYLAND_DISPLAY", "").strip()
    if requested is None:
        if not display and not wayland:
            return NO_DISPLAY
        if wayland:  # Qt prefers its Wayland plugin there and falls back to xcb itself
            return None
    elif requested != "xcb":
        return None
    elif not display:
        return NO_DISPLAY
    libraries = xcb_libraries(env)
    missing = missing_libraries(libraries)
    if not missing:
        return None
    packages = sorted(dict.fromkeys(libraries[name] for name in missing))
    return MISSING_LIBRARIES.format(names=", ".join(missing), packages=" ".join(packages))
