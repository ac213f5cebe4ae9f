"""The dictation state machine: which command is legal in which state, what it does, where it leads.

    coordinator = DictationCoordinator()            # IDLE: a new controller takes commands
    rule = coordinator.feed(BeginTake())            # Rule(Action.BEGIN, LISTENING); state is LISTENING
    coordinator.feed(BeginTake())                   # None: refused (already listening), logged

`TRANSITIONS` is the whole machine, one table of (state, trigger) -> `Rule`. The controller runs the
rule's action; the coordinator only keeps the state and the number of takes queued, so it is plain
Python (no threads, no Qt) and its every transition is tested without either.

A pair not in the table is refused: `feed` returns None, logs it (debug) and changes nothing. That
is the defined outcome rather than an error, because every such command is stale, never a user's
mistake: a key release after silence already ended the take, a segment end the audio thread
queued just before the user stopped, a take that finished after the controller closed.

Two targets depend on the takes still queued: a take done, or a begin that failed, settles on
TRANSCRIBING while takes remain to be processed, else on IDLE (`SETTLE`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum

from .commands import Command, Trigger
from .states import DictationState

__all__ = ["SETTLE", "TRANSITIONS", "Action", "DictationCoordinator", "Rule", "Settle"]

log = logging.getLogger(__name__)


class Action(Enum):
    """What the controller does for a legal command (the coordinator does none of it)."""

    NOTHING = "nothing"
    BEGIN = "begin"  # start a take: live VAD, microphone, preview
    END = "end"  # end the take and queue it for the take worker
    SEGMENT = "segment"  # end the take, queue it, and begin the next segment at once
    PREPARE = "prepare"  # warm the microphone up, or let it go (ArmMicrophone.armed)
    OPEN = "open"  # open the microphone (keep-open setting)
    APPLY = "apply"  # apply new settings


class Settle(Enum):
    """A target decided by the queue: TRANSCRIBING while takes are queued, else IDLE."""

    SETTLE = "settle"


SETTLE = Settle.SETTLE


@dataclass(frozen=True)
class Rule:
    """One legal transition: the action to run and the state it leads to."""

    action: Action
    target: DictationState | Settle

    @property
    def queues_take(self) -> bool:
        """Whether the action hands a finished take to the take worker."""
        return self.action in (Action.END, Action.SEGMENT)


def _table() -> dict[tuple[DictationState, Trigger], Rule]:
    s, t, a = DictationState, Trigger, Action
    off, idle, listening, transcribing = s.OFF, s.IDLE, s.LISTENING, s.TRANSCRIBING
    table = {
        (off, t.START): Rule(a.NOTHING, idle),
        (idle, t.START): Rule(a.NOTHING, idle),  # a new controller is idle before it starts
        (idle, t.BEGIN): Rule(a.BEGIN, listening),
        (idle, t.TOGGLE): Rule(a.BEGIN, listening),
        (transcribing, t.BEGIN): Rule(a.BEGIN, listening),  # the next take records while one is recognised
        (transcribing, t.TOGGLE): Rule(a.BEGIN, listening),
        (listening, t.BEGIN_FAILED): Rule(a.NOTHING, SETTLE),  # no microphone: nothing records after all
        (listening, t.END): Rule(a.END, transcribing),
        (listening, t.TOGGLE): Rule(a.END, transcribing),
        (listening, t.MIC_LOST): Rule(a.END, transcribing),
        (listening, t.SEGMENT): Rule(a.SEGMENT, listening),
        (listening, t.TAKE_DONE): Rule(a.NOTHING, listening),
        (transcribing, t.TAKE_DONE): Rule(a.NOTHING, SETTLE),
        (idle, t.ARM): Rule(a.PREPARE, idle),  # not while recording: the take holds the microphone
        (transcribing, t.ARM): Rule(a.PREPARE, transcribing),
        (idle, t.QUIT): Rule(a.NOTHING, off),
        (transcribing, t.QUIT): Rule(a.NOTHING, off),  # the take worker's take is cancelled; its WAV stays
        (listening, t.QUIT): Rule(a.END, off),  # the take recording is kept and queued like any other
    }
    for state in (idle, listening, transcribing):  # in any state of a running session
        table[(state, t.OPEN)] = Rule(a.OPEN, state)
        table[(state, t.SETTINGS)] = Rule(a.APPLY, state)
    return table


TRANSITIONS: dict[tuple[DictationState, Trigger], Rule] = _table()


class DictationCoordinator:
    """Keeps the state and the number of queued takes; `feed` moves them by `TRANSITIONS`.

    Not thread-safe by itself: the controller feeds it under its own lock.
    """

    def __init__(self, state: DictationState = DictationState.IDLE) -> None:
        """Args:
        state: where it starts; a new controller is IDLE (commands queue until it starts).
        """
        self.state = state
        self.queued = 0  # takes handed to the take worker and not done yet

    @property
    def busy(self) -> bool:
        """A take records or waits to be processed (what `DictationController.wait_idle` waits out); never
        when OFF, where the take worker has stopped and a take it had is done or cancelled."""
        if self.state is DictationState.OFF:
            return False
        return self.state is DictationState.LISTENING or self.queued > 0

    def feed(self, command: Command) -> Rule | None:
        """Take `command`: its rule (the state has moved already), or None when it is refused.

        Args:
            command: what happened or was asked for.
        """
        trigger = command.trigger
        rule = TRANSITIONS.get((self.state, trigger))
        if rule is None or (trigger is Trigger.TAKE_DONE and self.queued == 0):
            log.debug("dictation: %s refused while %s", trigger.value, self.state.value)
            return None
        if trigger is Trigger.TAKE_DONE:
            self.queued -= 1
        if trigger is Trigger.START:
            self.queued = 0  # a restart: takes of the closed session are no longer counted
        if rule.queues_take:
            self.queued += 1
        target = rule.target
        if isinstance(target, Settle):
            target = DictationState.TRANSCRIBING if self.queued else DictationState.IDLE
        self.state = target
        return rule
