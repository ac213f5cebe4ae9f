"""The first-run model picker: what each model is good for, and one click to get it.

A desktop user who has no model yet must not be sent to a terminal. When
nothing is installed the window opens this dialog: one card per catalog
model that describes itself (`CatalogModel.about`: download size,
languages, speed class, best uses), each with a Download button, plus
"Import a folder…" for a model folder, a pre-converted release or an
official checkpoint already on disk. The work runs on the model manager's
worker (`ModelWorker`), with the same progress line; when a model is
installed `modelInstalled` tells the window, which loads it, and the dialog
says that Tingji is ready. Nothing here is modal: the window behind stays
usable (files dropped meanwhile wait for the model).

Official checkpoints are converted on this computer, without torch, from
the graph templates the app ships (`export.templates`); a model whose family
this build has no templates for says so on its card and offers no download
that would fail at the end.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...errors import TingjiError
from ...models.about import ModelAbout
from ...models.catalog import CatalogModel, load_catalog
from ...models.installed import list_models
from ...models.store import InstallResult
from .. import theme
from ..errors import localized
from .facts import convertible, facts_html, how_text, languages_text, short_title, size_text
from .manager import default_import_name
from .task_dialog import ModelTaskDialog
from .worker import Task


class ModelCard(QFrame):
    """One catalog model: name, size, speed, languages, best uses, how it arrives, and its Download button."""

    def __init__(self, entry: CatalogModel, about: ModelAbout, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry, self.about = entry, about
        self.setObjectName("modelCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.size = QLabel()
        self.size.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.facts = QLabel()
        self.facts.setTextFormat(Qt.TextFormat.RichText)
        self.facts.setWordWrap(True)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.button = QPushButton()
        self.button.setAutoDefault(False)
        grid = QGridLayout(self)
        grid.setContentsMargins(12, 10, 12, 10)
        grid.setHorizontalSpacing(12)
        grid.addWidget(self.title, 0, 0)
        grid.addWidget(self.size, 0, 1)
        grid.addWidget(self.facts, 1, 0, 1, 2)
        grid.addWidget(self.note, 2, 0, 1, 2)
        grid.addWidget(self.button, 0, 2, 3, 1, Qt.AlignmentFlag.AlignVCenter)
        grid.setColumnStretch(0, 1)
        self.installed = False
        self.convertible = True

    def retranslate(self) -> None:
        self.title.setText(f"<b style='font-size:12pt'>{html.escape(short_title(self.entry))}</b>")
        self.size.setText(size_text(self.about))
        self.facts.setText(facts_html(self.about, self.palette()))
        self.facts.setToolTip(languages_text(self.about)[1])
        self.note.setText(how_text(self.entry, self.convertible))
        self.note.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        self.button.setText(self.tr("Installed") if self.installed else self.tr("Download"))


class ModelPickerDialog(ModelTaskDialog):
    """Choose and install a first model (see the module docstring)."""

    modelInstalled = Signal(str)  # the installed model's name

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, "tingji-picker")
        self.setMinimumSize(720, 560)
        self.setWindowFlag(Qt.WindowType.WindowContextHelpButtonHint, False)
        self.installed: list[str] = []  # installed while open, in order
        self.heading = QLabel()
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.cards: list[ModelCard] = []
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.hide()
        cards = QWidget()
        self.cards_layout = QVBoxLayout(cards)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.cards_layout.setSpacing(8)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(cards)
        self.task_title = QLabel()  # what is being installed, over the progress line
        self.task_title.setTextFormat(Qt.TextFormat.RichText)
        self.task_title.hide()
        self.outcome = QLabel()
        self.outcome.setWordWrap(True)
        self.outcome.setTextFormat(Qt.TextFormat.RichText)
        self.outcome.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.outcome.hide()
        self.import_button = QPushButton(self)  # parented now: see gui/__init__.py on ownership
        self.import_button.setAutoDefault(False)
        self.import_button.clicked.connect(self.import_dialog)
        self.close_button = QPushButton(self)
        self.close_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.import_button)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addWidget(self.problem)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.task_title)
        layout.addWidget(self.task_box)
        layout.addWidget(self.outcome)
        layout.addLayout(buttons)

        self._fill()
        self.retranslate()

    def _fill(self) -> None:
        try:
            catalog = list(load_catalog())
        except TingjiError as exc:
            catalog = []
            self.problem.setText(self.tr("The model catalog could not be read: {0}").format(localized(exc)))
            self.problem.show()
        self.catalog = {m.name: m for m in catalog}
        entries = sorted(
            ((m, m.about) for m in catalog if m.about is not None and not m.about.companion),
            key=lambda e: (e[1].rank, e[0].name),
        )
        for entry, about in entries:
            card = ModelCard(entry, about)
            card.button.clicked.connect(lambda _=False, name=entry.name: self.download(name))
            self.cards_layout.addWidget(card)
            self.cards.append(card)
        self.cards_layout.addStretch(1)
        self._update()

    def card(self, name: str) -> ModelCard:
        return next(c for c in self.cards if c.entry.name == name)

    def _update(self) -> None:
        installed = {m.name for m in list_models()}
        idle = self.idle
        for card in self.cards:
            card.installed = card.entry.name in installed
            card.convertible = convertible(card.entry, self.catalog, installed)
            card.button.setEnabled(idle and not card.installed and card.convertible)
            card.retranslate()
        self.import_button.setEnabled(idle)

    # -- tasks -------------------------------------------------------------------------------

    def download(self, name: str) -> None:
        self.start(Task("download", name))

    def import_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a model folder to import"))
        if folder:
            self.start_import(folder)

    def start_import(self, folder: str, name: str | None = None) -> None:
        """Install a copy of `folder` (a model, a pre-converted release or an official checkpoint)."""
        self.start(Task("import", name or default_import_name(folder), folder=folder))

    def _begin(self, task: Task) -> None:
        self.outcome.hide()
        self.task_title.setText(
            "<b>{}</b>".format(
                html.escape(
                    self.tr("Installing {0}…").format(task.name)
                    if task.kind == "download"
                    else self.tr("Importing {0} as {1}…").format(task.folder, task.name)
                )
            )
        )
        self.task_title.show()

    def _on_finished(self, task: Task, result: object) -> None:
        if isinstance(result, InstallResult):
            self.installed.append(result.name)
            self._say(
                "ok",
                self.tr(
                    "<b>{0} is installed.</b> Tingji is loading it and is then ready: drop audio "
                    "or video files on the window, or dictate with the hotkey. Settings chooses "
                    "a model for files and another for dictation."
                ).format(html.escape(result.name)),
            )
            self.modelInstalled.emit(result.name)
        self._task_done()

    def _on_failed(self, task: Task, error: TingjiError) -> None:
        what = (
            self.tr("Download of {0}").format(task.name)
            if task.kind == "download"
            else self.tr("Import of {0}").format(task.name)
        )
        self._say("error", self.tr("{0} failed: {1}").format(html.escape(what), html.escape(localized(error))))
        self._task_done()

    def _on_cancelled(self, task: Task) -> None:
        text = (
            self.tr("Download cancelled; downloading again resumes where it stopped.")
            if task.kind == "download"
            else self.tr("Import cancelled.")
        )
        self._say("info", html.escape(text))
        self._task_done()

    def _say(self, kind: str, text: str) -> None:
        color = theme.engine_color({"ok": "ready", "error": "failed"}.get(kind, "none"), self.palette()).name()
        self.outcome.setText(f"<span style='color:{color}'>●</span> {text}")
        self.outcome.show()

    def _task_done(self) -> None:
        self.task_title.hide()
        if not self._end_task():
            self._update()
            self.retranslate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Choose a speech model"))
        self.heading.setText(f"<b style='font-size:14pt'>{html.escape(self.tr('Choose a speech model'))}</b>")
        self.intro.setText(
            self.tr(
                "Tingji turns speech into text on this computer, with a speech model you download once. Pick one "
                "to start; you can add others later in Settings and use one for files and another for dictation."
            )
        )
        self.import_button.setText(self.tr("Import a folder…"))
        self.import_button.setToolTip(
            self.tr(
                "A Tingji model folder, a pre-converted release, or an official "
                "checkpoint folder you downloaded yourself"
            )
        )
        self.close_button.setText(self.tr("Start using Tingji") if self.installed else self.tr("Later"))
        for card in self.cards:
            card.retranslate()
        self.task_box.retranslate()
