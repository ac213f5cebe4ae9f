"""Proof 3 of issue 47: the dictation coordinator's every transition, legal and illegal, without Qt or threads.

The illegal pairs are derived from the table itself (every state x every trigger not in it), so a row
added to or taken from `TRANSITIONS` changes what is tested here without an edit.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from itertools import product

import pytest

from tingji.dictation.commands import (
    ApplySettings,
    ArmMicrophone,
    BeginFailed,
    BeginTake,
    Command,
    EndSegment,
    EndTake,
    MicrophoneLost,
    OpenMicrophone,
    Quit,
    Start,
    TakeDone,
    ToggleTake,
    Trigger,
)
from tingji.dictation.coordinator import SETTLE, TRANSITIONS, Action, DictationCoordinator
from tingji.dictation.settings import DictationSettings
from tingji.dictation.states import DictationState

OFF, IDLE, LISTENING, TRANSCRIBING = (
    DictationState.OFF,
    DictationState.IDLE,
    DictationState.LISTENING,
    DictationState.TRANSCRIBING,
)

# One command of each kind.
EXAMPLES: dict[Trigger, Command] = {
    c.trigger: c
    for c in (
        Start(),
        BeginTake(),
        EndTake("key released"),
        ToggleTake(),
        EndSegment("silence", quiet=True),
        ArmMicrophone(True),
        OpenMicrophone(),
        MicrophoneLost(),
        ApplySettings(DictationSettings()),
        BeginFailed(),
        TakeDone(),
        Quit(),
    )
}

# A legal way from a new coordinator to each state; LISTENING with an earlier take still queued, so that
# a take done there is legal too.
PATHS: dict[DictationState, list[Command]] = {
    IDLE: [],
    LISTENING: [BeginTake(), EndTake(), BeginTake()],
    TRANSCRIBING: [BeginTake(), EndTake()],
    OFF: [Quit()],
}

ILLEGAL = [(s, t) for s, t in product(DictationState, Trigger) if (s, t) not in TRANSITIONS]


def _at(state: DictationState) -> DictationCoordinator:
    c = DictationCoordinator()
    for command in PATHS[state]:
        assert c.feed(command) is not None, (state, command)
    assert c.state is state
    return c


def _name(pair: tuple[DictationState, Trigger]) -> str:
    return f"{pair[0].name}-{pair[1].name}"


def test_every_trigger_has_one_command_class_and_every_state_a_path() -> None:
    classes = {cls.trigger for cls in Command.__subclasses__()}
    assert classes == set(Trigger) == set(EXAMPLES)
    assert set(PATHS) == set(DictationState)
    # The table is the machine: 24 legal pairs, the other 24 of 4 states x 12 triggers refused.
    assert len(TRANSITIONS) == 24 and len(ILLEGAL) == 24


@pytest.mark.parametrize("pair", sorted(TRANSITIONS, key=_name), ids=_name)
def test_every_legal_transition_runs_its_rule(pair: tuple[DictationState, Trigger]) -> None:
    state, trigger = pair
    c = _at(state)
    queued = c.queued
    rule = c.feed(EXAMPLES[trigger])
    assert rule is TRANSITIONS[pair]
    after = queued + rule.queues_take - (trigger is Trigger.TAKE_DONE)
    after = 0 if trigger is Trigger.START else after
    assert c.queued == after >= 0
    expected = (TRANSCRIBING if after else IDLE) if rule.target is SETTLE else rule.target
    assert c.state is expected


@pytest.mark.parametrize("pair", ILLEGAL, ids=_name)
def test_every_illegal_transition_is_refused_logged_and_changes_nothing(
    pair: tuple[DictationState, Trigger], caplog: pytest.LogCaptureFixture
) -> None:
    state, trigger = pair
    c = _at(state)
    queued = c.queued
    with caplog.at_level(logging.DEBUG, logger="tingji.dictation.coordinator"):
        assert c.feed(EXAMPLES[trigger]) is None
    assert (c.state, c.queued) == (state, queued)
    assert [r.getMessage() for r in caplog.records] == [f"dictation: {trigger.value} refused while {state.value}"]


def test_a_failed_begin_settles_on_what_the_queue_holds() -> None:
    c = _at(IDLE)
    assert c.feed(BeginTake()).action is Action.BEGIN and c.state is LISTENING
    assert c.feed(BeginFailed()) is not None and c.state is IDLE  # no microphone, nothing queued
    c = _at(LISTENING)  # one earlier take still queued
    c.feed(BeginFailed())
    assert (c.state, c.queued) == (TRANSCRIBING, 1)


def test_a_take_done_with_none_queued_is_refused() -> None:
    c = _at(IDLE)
    c.feed(BeginTake())
    assert (c.state, c.queued) == (LISTENING, 0)
    assert c.feed(TakeDone()) is None and (c.state, c.queued) == (LISTENING, 0)


def test_stale_commands_after_quit_are_ignored_and_a_start_begins_afresh() -> None:
    c = _at(LISTENING)
    assert c.feed(Quit()).action is Action.END  # the take recording is kept and queued
    assert (c.state, c.queued) == (OFF, 2) and not c.busy  # the take worker stops: nothing to wait for
    for stale in (TakeDone(), TakeDone(), EndTake("silence"), EndSegment("silence"), MicrophoneLost(), BeginFailed()):
        assert c.feed(stale) is None
    assert c.state is OFF and not c.feed(ToggleTake())
    assert c.feed(Start()) is not None and (c.state, c.queued) == (IDLE, 0) and not c.busy


def test_a_continuous_session_from_the_first_press_to_the_last_take() -> None:
    c = DictationCoordinator()
    steps = [
        (ToggleTake(), Action.BEGIN, LISTENING, 0),
        (EndSegment("silence"), Action.SEGMENT, LISTENING, 1),  # a pause: this segment is queued, listening goes on
        (EndSegment("silence"), Action.SEGMENT, LISTENING, 2),
        (TakeDone(), Action.NOTHING, LISTENING, 1),
        (ArmMicrophone(True), None, LISTENING, 1),  # refused: the take holds the microphone
        (ToggleTake(), Action.END, TRANSCRIBING, 2),
        (EndTake("silence"), None, TRANSCRIBING, 2),  # refused: the live VAD's end came after the press
        (TakeDone(), Action.NOTHING, TRANSCRIBING, 1),
        (BeginTake(), Action.BEGIN, LISTENING, 1),  # the next take records while one is recognised
        (EndTake("key released"), Action.END, TRANSCRIBING, 2),
        (TakeDone(), Action.NOTHING, TRANSCRIBING, 1),
        (TakeDone(), Action.NOTHING, IDLE, 0),
    ]
    for command, action, state, queued in steps:
        rule = c.feed(command)
        assert (rule.action if rule else None, c.state, c.queued) == (action, state, queued), command
        assert c.busy == (state is LISTENING or queued > 0)


def test_the_coordinator_imports_no_qt_and_no_devices() -> None:
    code = (
        "import sys; import tingji.dictation.coordinator, tingji.dictation.states;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'sounddevice', 'pynput')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
