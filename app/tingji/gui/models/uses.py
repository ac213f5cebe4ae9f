"""Saying which model each use runs, in the status bar (the pages' lines: files/page.py, dictation/host.py).

A user may pick one model for files and another for dictation
(`EngineHost`, "files" and "dictation" uses). These texts say which is
which, in the user's language (context "ModelUse"), so that nobody wonders
why dictation answers differently from the file queue.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication

from ..engine_host import EngineHost, EngineState

# Which state colours the status bar's dot when the uses' states differ: the most urgent first.
_URGENCY = (EngineState.FAILED, EngineState.LOADING, EngineState.NONE, EngineState.UNLOADED, EngineState.READY)


def model_name(host: EngineHost, use: str) -> str:
    """The model `use` runs ("" when it has none)."""
    choice = host.choice_of(use)
    return choice.name if choice is not None else ""


def use_state_text(host: EngineHost, use: str) -> str:
    """One use's model and state, short: "sense-voice-small (loading…)"."""
    state, name = host.state_of(use), html.escape(model_name(host, use))
    if state is EngineState.READY:
        return name
    if state is EngineState.LOADING:
        return QCoreApplication.translate("ModelUse", "{0} (loading…)").format(name)
    if state is EngineState.UNLOADED:
        return QCoreApplication.translate("ModelUse", "{0} (unloaded while idle)").format(name)
    if state is EngineState.FAILED:
        return QCoreApplication.translate("ModelUse", "{0} (failed to load)").format(name or "?")
    return QCoreApplication.translate("ModelUse", "no model")


def status_text(host: EngineHost) -> tuple[str, EngineState]:
    """The status bar's line when the uses run different models, and the state its dot shows."""
    text = QCoreApplication.translate("ModelUse", "Files: {0} · Dictation: {1}").format(
        use_state_text(host, "files"), use_state_text(host, "dictation")
    )
    states = {host.state_of("files"), host.state_of("dictation")}
    return text, next(s for s in _URGENCY if s in states)
