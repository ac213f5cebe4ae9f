"""What the dictation controller tells its user: one frozen class per kind of event, from any thread.

    TakeBegun            a take is starting (sent before the microphone opens: a UI shows itself at once)
    StateChanged         the session's `DictationState` changed (coordinator.py's table decides)
    PreviewText          the take so far, re-transcribed while it records (show it, never paste it)
    PreviewModelChanged  which model previews now, and why (preview.PreviewChoice)
    TakeStored           a take was stored (and inserted unless take.output == "failed")
    NothingSaid          a take held no speech; nothing was inserted
    Problem              a problem (microphone, output, engine); the controller keeps running
    HotkeyStatus         whether the global hotkey works (error None), else why not

A UI shows an error in its own language (its code and fields); `message` is its English line, for logs
and for anything that only speaks English. A UI tells the kinds apart by class (`match`/`isinstance`);
`kind` names each for logs and for test harnesses that write events out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

from ..errors import TingjiError
from .history import DictationTake
from .states import DictationState

if TYPE_CHECKING:
    from .preview import PreviewChoice

__all__ = [
    "DictationEvent",
    "EventKind",
    "HotkeyStatus",
    "NothingSaid",
    "PreviewModelChanged",
    "PreviewText",
    "Problem",
    "StateChanged",
    "TakeBegun",
    "TakeStored",
]


class EventKind(Enum):
    BEGIN = "begin"
    STATE = "state"
    PREVIEW = "preview"
    PREVIEW_MODEL = "preview_model"
    TAKE = "take"
    EMPTY = "empty"
    ERROR = "error"
    HOTKEY = "hotkey"


@dataclass(frozen=True)
class DictationEvent:
    """Base of every event the controller sends to its `on_event`."""

    kind: ClassVar[EventKind]


@dataclass(frozen=True)
class TakeBegun(DictationEvent):
    kind: ClassVar[EventKind] = EventKind.BEGIN


@dataclass(frozen=True)
class StateChanged(DictationEvent):
    state: DictationState
    kind: ClassVar[EventKind] = EventKind.STATE


@dataclass(frozen=True)
class PreviewText(DictationEvent):
    """`run_s`: the seconds the run that made `text` took."""

    text: str
    run_s: float
    kind: ClassVar[EventKind] = EventKind.PREVIEW


@dataclass(frozen=True)
class PreviewModelChanged(DictationEvent):
    choice: PreviewChoice
    kind: ClassVar[EventKind] = EventKind.PREVIEW_MODEL


@dataclass(frozen=True)
class TakeStored(DictationEvent):
    """`timings`: seconds per step of the take (vad_s, transcribe_s, end_to_text_s, ...)."""

    take: DictationTake
    timings: dict[str, float] = field(default_factory=dict)
    kind: ClassVar[EventKind] = EventKind.TAKE


@dataclass(frozen=True)
class NothingSaid(DictationEvent):
    """`message`: why, in English ("no speech heard", "nothing was recorded", ...)."""

    message: str
    kind: ClassVar[EventKind] = EventKind.EMPTY


@dataclass(frozen=True)
class Problem(DictationEvent):
    error: TingjiError
    kind: ClassVar[EventKind] = EventKind.ERROR

    @property
    def message(self) -> str:
        """The English line."""
        return str(self.error)


@dataclass(frozen=True)
class HotkeyStatus(DictationEvent):
    error: TingjiError | None = None  # None: the global hotkey works
    kind: ClassVar[EventKind] = EventKind.HOTKEY

    @property
    def message(self) -> str:
        """Why the hotkey does not work, in English; "" when it works."""
        return "" if self.error is None else str(self.error)
