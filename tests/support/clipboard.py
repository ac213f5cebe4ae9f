"""A process-local clipboard for dictation tests: the `Clipboard` protocol without a desktop."""

from __future__ import annotations

import threading


class MemoryClipboard:
    """What a desktop clipboard holds, in memory; `save`/`restore` as the output step uses them."""

    def __init__(self, text: str = "") -> None:
        self._text = text
        self._lock = threading.Lock()

    def save(self) -> object:
        with self._lock:
            return self._text

    def restore(self, snapshot: object) -> None:
        with self._lock:
            self._text = str(snapshot)

    def set_text(self, text: str) -> None:
        with self._lock:
            self._text = text

    def text(self) -> str:
        with self._lock:
            return self._text
