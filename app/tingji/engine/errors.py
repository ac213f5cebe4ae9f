"""Errors a user sees as one line.

Everything the engine raises on purpose derives from `TingjiError`, whose
`str()` is a complete, single-line message fit for a status bar, a queue row or
stderr. Anything else that escapes is a bug, and the CLI/GUI say so.
"""

from __future__ import annotations

import os


class TingjiError(Exception):
    """Base class: the message is meant for the user, on one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


class AudioError(TingjiError):
    """A media file could not be read as audio. Names the file and the problem."""

    def __init__(self, path: str | os.PathLike[str] | None, problem: str) -> None:
        self.path = None if path is None else os.fspath(path)
        self.problem = problem
        where = self.path if self.path is not None else "audio"
        super().__init__(f"{where}: {problem}")


class ModelError(TingjiError):
    """A model folder is missing, incomplete, corrupt or of an unknown kind."""


class Cancelled(TingjiError):
    """The caller asked to stop; work finished before the request is kept.

    `partial` carries whatever was finished (a Transcript, when raised by
    Engine.transcribe), so a cancelled long file still yields its first part.
    """

    def __init__(self, message: str = "cancelled", partial: object | None = None) -> None:
        super().__init__(message)
        self.partial = partial
