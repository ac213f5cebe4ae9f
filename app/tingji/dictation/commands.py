"""What the dictation coordinator is told: one frozen class per trigger, each naming its `Trigger`.

Commands come from the user (the hotkey, the Dictate button, a settings change) and from the
controller's own threads (the live VAD ends a take, the microphone fails, a take was processed).
The controller queues them; coordinator.py decides from its table what each does in each state.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from .settings import DictationSettings

__all__ = [
    "ApplySettings",
    "ArmMicrophone",
    "BeginFailed",
    "BeginTake",
    "Command",
    "EndSegment",
    "EndTake",
    "MicrophoneLost",
    "OpenMicrophone",
    "Quit",
    "Start",
    "TakeDone",
    "ToggleTake",
    "Trigger",
]


class Trigger(Enum):
    """The kinds of command: the columns of the coordinator's table."""

    START = "start"  # the controller starts (again, after a close)
    BEGIN = "begin"  # begin a take (hold mode's key down)
    END = "end"  # end the take (a key released, silence, the maximum length, a Stop)
    TOGGLE = "toggle"  # begin a take, or end the one recording (toggle/continuous key, the Dictate button)
    SEGMENT = "segment"  # continuous mode: a pause closes this segment and listening goes on
    ARM = "arm"  # the hotkey's modifiers went down (or up): warm the microphone up (or let it go)
    OPEN = "open"  # "keep the microphone open" is on: open it now
    MIC_LOST = "mic_lost"  # the microphone stopped during a take
    SETTINGS = "settings"  # new dictation settings
    BEGIN_FAILED = "begin_failed"  # the microphone did not start the take (or the next segment)
    TAKE_DONE = "take_done"  # the take worker finished a take: stored, empty, failed or cancelled
    QUIT = "quit"  # the controller closes


@dataclass(frozen=True)
class Command:
    """Base of every command; `trigger` says which column of the table it is."""

    trigger: ClassVar[Trigger]


@dataclass(frozen=True)
class Start(Command):
    trigger: ClassVar[Trigger] = Trigger.START


@dataclass(frozen=True)
class BeginTake(Command):
    trigger: ClassVar[Trigger] = Trigger.BEGIN


@dataclass(frozen=True)
class EndTake(Command):
    """`reason` goes with the take into takes.py ("silence" and "microphone error" keep no tail)."""

    reason: str = "stopped"
    trigger: ClassVar[Trigger] = Trigger.END


@dataclass(frozen=True)
class ToggleTake(Command):
    trigger: ClassVar[Trigger] = Trigger.TOGGLE


@dataclass(frozen=True)
class EndSegment(Command):
    """`quiet`: a segment without speech ends without a "nothing was said" event."""

    reason: str
    quiet: bool = False
    trigger: ClassVar[Trigger] = Trigger.SEGMENT


@dataclass(frozen=True)
class ArmMicrophone(Command):
    armed: bool
    trigger: ClassVar[Trigger] = Trigger.ARM


@dataclass(frozen=True)
class OpenMicrophone(Command):
    trigger: ClassVar[Trigger] = Trigger.OPEN


@dataclass(frozen=True)
class MicrophoneLost(Command):
    trigger: ClassVar[Trigger] = Trigger.MIC_LOST


@dataclass(frozen=True)
class ApplySettings(Command):
    settings: DictationSettings
    trigger: ClassVar[Trigger] = Trigger.SETTINGS


@dataclass(frozen=True)
class BeginFailed(Command):
    trigger: ClassVar[Trigger] = Trigger.BEGIN_FAILED


@dataclass(frozen=True)
class TakeDone(Command):
    trigger: ClassVar[Trigger] = Trigger.TAKE_DONE


@dataclass(frozen=True)
class Quit(Command):
    trigger: ClassVar[Trigger] = Trigger.QUIT
