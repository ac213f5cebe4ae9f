"""`QtClipboard`: the clipboard the dictation controller pastes through.

The controller calls it from its worker thread, but QClipboard may only be
used from the GUI thread, so each call is run there (queued signal) and the
worker waits for the result. The snapshot keeps every MIME format, so a
copied image or rich text comes back after the paste, not only plain text.

At exit on the offscreen platform (tests, headless runs) the clipboard is
cleared: that platform keeps clipboard data in a C++ static destroyed after
Python has finalised, and deleting a QMimeData made in Python then crashes
the process. Nothing is lost: offscreen has no system clipboard to keep.

`interrupt()` makes waiting and later calls from other threads fail at once:
the GUI thread calls it before it blocks to close the dictation controller,
which would otherwise wait for a paste that waits for the GUI thread.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, QMimeData, QObject, Qt, QThread, Signal, Slot
from PySide6.QtGui import QClipboard, QGuiApplication, QImage

from ...dictation import messages
from ...dictation.output import OutputError

# X11 selection meta-targets that Qt lists as formats; they are not content.
_NOT_CONTENT = {"TARGETS", "MULTIPLE", "TIMESTAMP", "SAVE_TARGETS"}


class QtClipboard(QObject):
    """A thread-safe `tingji.dictation.output.Clipboard` on top of QClipboard. Create it on the GUI thread."""

    _invoke = Signal(object)

    def __init__(
        self, clipboard: QClipboard | None = None, parent: QObject | None = None, timeout_s: float = 5.0
    ) -> None:
        super().__init__(parent)
        self._clipboard = clipboard or QGuiApplication.clipboard()
        self.timeout_s = timeout_s
        self._interrupted = threading.Event()
        self._invoke.connect(self._run, Qt.ConnectionType.QueuedConnection)

    # -- Clipboard protocol ------------------------------------------------------------

    def save(self) -> object:
        return self._call(self._snapshot)

    def restore(self, snapshot: object) -> None:
        self._call(lambda: self._restore(snapshot))

    def set_text(self, text: str) -> None:
        self._call(lambda: self._clipboard.setText(text))

    def text(self) -> str:
        return str(self._call(self._clipboard.text))

    def interrupt(self) -> None:
        """Calls from other threads fail now instead of waiting for the GUI thread (until resume())."""
        self._interrupted.set()

    def resume(self) -> None:
        self._interrupted.clear()

    # -- GUI-thread side ----------------------------------------------------------------

    def _call(self, fn: Callable[[], Any]) -> Any:
        if QThread.currentThread() is self.thread():
            return fn()
        box: dict[str, Any] = {}
        done = threading.Event()
        if not self._interrupted.is_set():
            self._invoke.emit((fn, box, done))
        deadline = time.monotonic() + self.timeout_s
        while not done.wait(0.02):
            if self._interrupted.is_set():
                raise OutputError(messages.CLIPBOARD_STOPPING)
            if time.monotonic() > deadline:
                raise OutputError(messages.CLIPBOARD_TIMEOUT)
        if "error" in box:
            raise box["error"]
        return box.get("value")

    @Slot(object)
    def _run(self, job: tuple) -> None:
        fn, box, done = job
        try:
            box["value"] = fn()
        except Exception as exc:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    def _snapshot(self) -> dict[str, Any]:
        md = self._clipboard.mimeData()
        snap: dict[str, Any] = {}
        if md is None:
            return snap
        for fmt in md.formats():
            if fmt in _NOT_CONTENT or "/" not in fmt:
                continue
            snap[fmt] = bytes(md.data(fmt).data())
        if md.hasImage():
            image = md.imageData()
            if isinstance(image, QImage) and not image.isNull():
                snap["\0image"] = QImage(image)
        return snap

    def _restore(self, snapshot: object) -> None:
        snap = snapshot if isinstance(snapshot, dict) else {}
        if not snap:
            self._clipboard.clear()
            return
        md = QMimeData()
        for fmt, data in snap.items():
            if fmt == "\0image":
                md.setImageData(data)
            else:
                md.setData(fmt, QByteArray(data))
        self._clipboard.setMimeData(md)


def _clear_offscreen_clipboard() -> None:
    app = QGuiApplication.instance()
    if app is not None and QGuiApplication.platformName() == "offscreen":
        QGuiApplication.clipboard().clear()


atexit.register(_clear_offscreen_clipboard)  # runs before PySide's own exit handler (registered earlier)
