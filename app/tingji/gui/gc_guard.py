"""Python's cyclic garbage collector, run only on the GUI thread while Qt lives.

The app has busy Python threads beside the GUI thread (the engine worker,
dictation's capture and take threads, file scans). CPython runs a collection
in whichever thread happens to allocate past the threshold, and a collection
walks every tracked object, PySide's wrappers included; shiboken's traversal
reads Qt-side state that the GUI thread may be changing at that moment
(widgets and their children being created or deleted without the GIL). That
race crashed the test suite (SIGSEGV inside `visit_decref` via libshiboken6,
collection triggered on a worker thread). The cure PySide users settle on:
switch automatic collection off and collect from a timer on the GUI thread,
generation by generation with the interpreter's own thresholds, so the cost
stays what automatic collection would cost. Objects alive at start-up (all
the imported modules) are frozen out of later collections, which keeps an
occasional oldest-generation pass short enough not to stall the event loop.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 100
OBJECT_NAME = "tingjiGuiThreadCollector"


class GuiThreadCollector(QObject):
    """Owns `gc`'s automatic mode for the application's lifetime."""

    def __init__(self, app: QCoreApplication, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(app)
        self.setObjectName(OBJECT_NAME)
        self._was_enabled = gc.isenabled()
        self._thresholds = gc.get_threshold()
        gc.collect()
        gc.freeze()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start()
        app.aboutToQuit.connect(self.restore)

    def collect_due(self) -> int:
        """Collect the oldest generation whose count is past its threshold; returns it (-1: none)."""
        counts = gc.get_count()
        due = -1
        for generation, (count, threshold) in enumerate(zip(counts, self._thresholds)):
            if threshold and count > threshold:
                due = generation
        if due >= 0:
            gc.collect(due)
        return due

    def restore(self) -> None:
        """Give collection back to the interpreter (the app is quitting)."""
        self._timer.stop()
        if self._was_enabled:
            gc.enable()


def install(app: QCoreApplication) -> GuiThreadCollector:
    """Install the collector once per application; later calls return the same one."""
    existing = app.findChild(QObject, OBJECT_NAME)
    if isinstance(existing, GuiThreadCollector):
        return existing
    return GuiThreadCollector(app)
