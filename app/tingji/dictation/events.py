"""What the dictation controller tells its user: one event type for every thread that reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import TingjiError
from .history import DictationTake

if TYPE_CHECKING:
    from .preview import PreviewChoice


@dataclass
class DictationEvent:
    """What the user should see. `kind`:

    begin  - a take is starting (sent before the microphone opens: a UI shows itself at once)
    state  - `state` changed (idle / listening / transcribing)
    preview - `text` is the take so far, re-transcribed while it records (show it, never paste it);
              `timings["run_s"]` the seconds that run took
    preview_model - `preview` says which model previews now, and why (preview.PreviewChoice)
    take   - `take` was stored (and inserted unless take.output == "failed")
    empty  - a take held no speech; nothing was inserted
    error  - `error` is the problem (microphone, output, engine) and `message`
             its English line; the controller keeps running
    hotkey - `error` is None when the global hotkey works, else why not
             (`message` is then its English line, else "")

    A UI shows `error` in its own language (its code and fields); `message`
    is for logs and for anything that only speaks English.
    """

    kind: str
    message: str = ""
    state: str = ""
    text: str = ""
    take: DictationTake | None = None
    timings: dict[str, float] = field(default_factory=dict)
    error: TingjiError | None = None
    preview: PreviewChoice | None = None

    @classmethod
    def problem(cls, kind: str, error: TingjiError | None) -> DictationEvent:
        """An "error" or "hotkey" event about `error` (None: the hotkey works)."""
        return cls(kind, "" if error is None else str(error), error=error)
