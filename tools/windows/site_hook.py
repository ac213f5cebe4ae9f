"""Start-up hook of the Windows Python in Tingji's Wine test environment (not part of Tingji).

tools/windows/setup installs this file as `_tingji_wine.py` in the embeddable Python's
site-packages, with a `.pth` line that imports it when `site` runs. It gives back what a
python.org installer's python.exe would honour and this environment takes away:

- PYTHONPATH: the embeddable distribution's `python311._pth` makes Python ignore it. Here its
  `;`-separated entries go first on sys.path, so each checkout runs its own `app/`
  (tools/windows/run sets it).
- QT_* variables: Wine drops every environment variable whose name starts with `QT_`, so
  tools/windows/run passes each as `TINGJI_WINE_QT_...` and they are restored here, before
  anything imports Qt.
"""

import os
import sys

_QT_PREFIX = "TINGJI_WINE_QT_"


def _apply() -> None:
    entries = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for entry in reversed(entries):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    for name, value in list(os.environ.items()):
        if name.upper().startswith(_QT_PREFIX):
            os.environ["QT_" + name[len(_QT_PREFIX) :]] = value


_apply()
