"""What the dictation controller tells its user: one event type for every thread that reports."""

from __future__ import annotations

from dataclasses import dataclass, field

from .history import DictationTake


@dataclass
class DictationEvent:
    """What the user should see. `kind`:

    state  - `state` changed (idle / listening / transcribing)
    take   - `take` was stored (and inserted unless take.output == "failed")
    empty  - a take held no speech; nothing was inserted
    error  - `message` is a one-line problem (microphone, output, engine); the
             controller keeps running
    hotkey - `message` is "" when the global hotkey works, else why not
    """

    kind: str
    message: str = ""
    state: str = ""
    take: DictationTake | None = None
    timings: dict[str, float] = field(default_factory=dict)
