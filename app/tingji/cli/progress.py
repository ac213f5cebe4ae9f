"""One status line on stderr: redrawn in place on a terminal, plain lines elsewhere.

`tingji transcribe` and `tingji models` both show progress while they work.
On a terminal the status line is rewritten with a carriage return and padded
with spaces rather than erased with an ANSI sequence, because old Windows
consoles print escape sequences literally. Redraws are throttled: a download
reports every chunk, and writing each one would cost more than the download.
Piped or redirected, there is nothing to redraw, so only permanent lines are
written and a log stays readable.
"""

from __future__ import annotations

import os
import time
import unicodedata
from typing import TextIO


def _cells(text: str) -> int:
    """Terminal columns `text` takes: CJK file names are two columns a character."""
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def _clip(text: str, columns: int) -> str:
    """`text` cut to fit `columns`: a line that wraps cannot be redrawn with a carriage return."""
    used = 0
    for i, char in enumerate(text):
        used += _cells(char)
        if used > columns:
            return text[:i]
    return text


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)  # a replaced sys.stderr need not be a real file
    return bool(isatty and isatty())


class StatusLine:
    """The line that shows what is happening now, plus the permanent lines between updates."""

    def __init__(self, stream: TextIO, interval: float = 0.1) -> None:
        self.stream = stream
        self.tty = _is_terminal(stream)
        self.interval = interval
        self._shown: int | None = None  # columns of the status line on screen; None when there is none
        self._drawn_at = 0.0

    def show(self, text: str, *, force: bool = False) -> None:
        """Replace the status line with `text` (on a terminal; elsewhere nothing to do).

        At most one redraw per `interval` unless `force` (a last update that must be seen).
        """
        if not self.tty:
            return
        now = time.monotonic()
        if self._shown is not None and not force and now - self._drawn_at < self.interval:
            return
        self._drawn_at = now
        self._draw(_clip(text, self._columns() - 1))
        self.stream.flush()

    def finish(self) -> None:
        """Leave the status line as it is and start a new one below it."""
        if self._shown is not None:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = None

    def print(self, line: str) -> None:
        """A permanent line; on a terminal it takes the status line's place."""
        if self._shown is not None:
            self._draw(line)
            self._shown = None
            self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def _draw(self, text: str) -> None:
        width = _cells(text)
        self.stream.write("\r" + text + " " * max(0, (self._shown or 0) - width))
        self._shown = width

    def _columns(self) -> int:
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            return 80
        return columns if columns > 10 else 80  # some consoles report 0
