"""What the window says about its models: the status bar's line and the banner over the pages.

`EngineStatus` is the status bar's line: a dot coloured by the state, the
files model's name and state and where it runs (or, when the uses run
different models, which runs what: uses.py), the load warnings as its tooltip.
`EngineBanner` speaks up when the user must act: no model installed (choose
one), a model that failed to load (why, and Settings), or a model loaded with
warnings. Its buttons ask the window through signals. Both are rendered again
from the EngineHost at each change, and on a language switch (the line on a
palette switch too).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, QEvent, Signal
from PySide6.QtWidgets import QWidget

from ...engine import messages as engine_messages
from ...engine.sessions import PROVIDER_NAMES
from ...errors import render
from .. import theme
from ..banner import NoticeBanner
from ..engine_host import EngineHost, EngineState
from ..errors import localized, translated
from ..status_line import StatusLine
from . import uses


def failure_text(host: EngineHost, use: str) -> str:
    """Why the use's model failed to load, in the UI language (plain text)."""
    error = host.error_of(use)
    return localized(error) if error is not None else host.detail_of(use)


class EngineStatus(StatusLine):
    """The status bar's line about the models."""

    def __init__(self, engine: EngineHost, parent: QWidget | None = None) -> None:
        self.engine = engine
        super().__init__("engineStatus", engine.stateChanged, parent)

    def refresh(self) -> None:
        e = self.engine
        state, detail, files = e.state_of("files"), html.escape(e.detail_of("files")), e.engine_of("files")
        if not e.shared():  # two models: say which runs what
            text, state = uses.status_text(e)
        elif state is EngineState.LOADING:
            text = self.tr("Loading model {0}…").format(detail)
            if files is not None and files.preparing is not None:  # minutes the first time: never taken for a hang
                gpu, seconds = files.preparing
                said = render(translated(engine_messages.GPU_PREPARING), {"adapter": gpu, "seconds": int(seconds)})
                text += " · " + html.escape(said)
        elif state is EngineState.READY:
            provider = files.provider if files is not None else ""
            where = PROVIDER_NAMES.get(provider, provider)
            if files is not None and files.device:  # which GPU: a PC often has an integrated and a discrete one
                where += f" ({html.escape(files.device)})"
            text = self.tr("Ready · {0} on {1}").format(detail, where)
        elif state is EngineState.FAILED:
            text = self.tr("Model failed to load: {0}").format(html.escape(failure_text(e, "files")))
        elif state is EngineState.UNLOADED:
            text = self.tr(
                "Model {0} unloaded to free memory (idle) · it loads again for the next file or dictation"
            ).format(detail)
        else:
            text = self.tr("No speech model installed")
        self.show_state(theme.engine_color(state.value, self.palette()), text)
        tips = [localized(w) for w in (files.warnings if files is not None else ())]
        if not e.shared():
            for use in ("files", "dictation"):
                engine = e.engine_of(use)
                shown = [localized(w) for w in (engine.warnings if engine is not None else ())]
                tips += [w for w in shown if w not in tips]
        self.setToolTip("\n".join(tips))


class EngineBanner(NoticeBanner):
    """The banner about the models: none installed, one failed to load, or loaded with warnings."""

    settingsRequested = Signal()
    pickerRequested = Signal()  # "Choose a model…": the first-run picker
    managerRequested = Signal()  # "Manage models…"

    def __init__(self, engine: EngineHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        engine.stateChanged.connect(self.refresh)
        self.refresh()

    def changeEvent(self, event: QEvent) -> None:  # its colours: the window restyles it (restyle sets a palette)
        if event.type() == QEvent.Type.LanguageChange:
            self.refresh()
        super().changeEvent(event)

    def refresh(self) -> None:
        e = self.engine
        settings_button = (self.tr("Settings…"), self.settingsRequested.emit)
        state, dictation, files = e.state_of("files"), e.state_of("dictation"), e.engine_of("files")
        if state is EngineState.NONE:
            self.show_notice(
                "info",
                QCoreApplication.translate(
                    "ModelUse",
                    "<b>No speech model installed.</b> Choose one to download, or import a model folder "
                    "you have. Files you add now wait until a model is ready.",
                ),
                [
                    (QCoreApplication.translate("ModelUse", "Choose a model…"), self.pickerRequested.emit),
                    (self.tr("Manage models…"), self.managerRequested.emit),
                ],
            )
        elif state is EngineState.FAILED:
            self.show_notice(
                "error",
                self.tr("<b>The speech model could not be loaded.</b> {0}").format(
                    html.escape(failure_text(e, "files"))
                ),
                [settings_button],
            )
        elif dictation is EngineState.FAILED and not e.shared():
            self.show_notice(
                "error",
                QCoreApplication.translate("ModelUse", "<b>The dictation model could not be loaded.</b> {0}").format(
                    html.escape(failure_text(e, "dictation"))
                ),
                [settings_button],
            )
        elif state is EngineState.READY and files is not None and files.warnings:
            self.show_notice(
                "info",
                "<br>".join(html.escape(localized(w)) for w in files.warnings),
                [(self.tr("Dismiss"), self.hide)],
            )
        else:
            self.hide()
