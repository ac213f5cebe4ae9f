"""The model manager dialog: see, download, import, verify, remove and choose speech models.

One table lists the catalog's models and the installed ones (`installed.overview`),
with size, state (installed, not installed, or partially downloaded: a
download that was cancelled or cut off; downloading again resumes from its
`.part` file) and what a download is checked against: hashes the catalog
publishes, hashes pinned by the user's first download, or none (said plainly:
such a download cannot be checked). Work runs one task at a time on `ModelWorker`'s thread; the
dialog shows its stage, a progress bar, speed and time left, and can cancel
it. Closing the dialog during a task cancels the task first.

"Use for files" and "Use for dictation" do not touch settings themselves:
they emit `modelChosen(name, use)`, and the main window applies it through
the same path as the Settings dialog (save, then load in the background).
The "Used for" column says which installed model runs which use. `models_changed` tells the
window whether installs or removals happened, so it reloads only when needed.

An installed model's details say which mirror its files came from (the manifest's
`source`) and, for a Fun-ASR-Nano, whether it times its words (the copy on
Hugging Face has no CTC head). An official checkpoint this build cannot convert
(`facts.convertible`) says so, and its Download button stays off.
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...engine.manifest import Manifest, load_manifest
from ...errors import TingjiError
from ...models.catalog import CatalogModel, load_catalog
from ...models.diskspace import format_bytes
from ...models.installed import ModelStatus, overview
from ...models.store import InstallResult
from .. import theme
from ..errors import localized
from .facts import convertible, facts_html, how_text, short_title, source_text, timestamps_text
from .task_dialog import ModelTaskDialog
from .worker import Task

log = logging.getLogger(__name__)


def default_import_name(folder: str) -> str:
    """A valid model name from a folder's name (what `store.import_folder` would pick)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", Path(folder).name).strip(".-_")[:64] or "model"


class ModelManagerDialog(ModelTaskDialog):
    modelChosen = Signal(str, str)  # an installed model's name, and the use ("files", "dictation") it is for

    COLUMNS = 5

    def __init__(self, parent: QWidget | None = None, current: str = "", dictation: str | None = None) -> None:
        """`current`: the files model's name; `dictation`: dictation's (None: the same as files)."""
        super().__init__(parent, "tingji-models")
        self.setMinimumSize(760, 500)
        self.current = current
        self.dictation = dictation
        self.models_changed = False  # something was installed or removed while open
        self.rows: list[ModelStatus] = []
        self.entries: dict[str, CatalogModel] = {}  # the catalog's, by name
        self._build_table()
        # -- the running task
        self.stage_label, self.progress_bar = self.task_box.stage_label, self.task_box.progress_bar
        self.speed_label, self.cancel_button = self.task_box.speed_label, self.task_box.cancel_button
        # Outcomes (errors, pinned hashes) stay readable and copyable here.
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setFixedHeight(self.fontMetrics().lineSpacing() * 5 + 12)
        button_row, use_row = self._build_buttons()
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details)
        layout.addWidget(self.task_box)
        layout.addWidget(self.log)
        layout.addLayout(button_row)
        layout.addLayout(use_row)
        self.retranslate()
        self.refresh()

    def _build_table(self) -> None:
        """The heading, the models (installed, in the catalog, partly downloaded) and the selected one's details."""
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.table = QTableWidget(0, self.COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemSelectionChanged.connect(self._update)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.details.setOpenExternalLinks(True)

    def _build_buttons(self) -> tuple[QHBoxLayout, QHBoxLayout]:
        """The row of model tasks and the row that puts the selected model to use (or closes)."""
        self.buttons: dict[str, QPushButton] = {}
        button_row, use_row = QHBoxLayout(), QHBoxLayout()
        for row, key, slot in (
            (button_row, "download", self.download_selected),
            (button_row, "import", self.import_dialog),
            (button_row, "verify", self.verify_selected),
            (button_row, "remove", self.remove_selected),
            (button_row, "forget", self.forget_selected),
            (button_row, "stretch", None),
            (use_row, "use", lambda: self.use_selected("files")),
            (use_row, "use_dictation", lambda: self.use_selected("dictation")),
            (use_row, "stretch", None),
            (use_row, "close", self.reject),
        ):
            if slot is None:
                row.addStretch(1)
                continue
            button = QPushButton(self)  # parented now: see gui/__init__.py on ownership
            button.clicked.connect(slot)
            button.setAutoDefault(False)
            row.addWidget(button)
            self.buttons[key] = button
        return button_row, use_row

    # -- the table ---------------------------------------------------------------------------------

    def refresh(self, select: str | None = None) -> None:
        """Re-read installed models, the catalog and partial downloads (file metadata only: fast)."""
        keep = select or self.selected_name()
        try:
            catalog = load_catalog()
        except TingjiError as exc:
            catalog = None
            self.note(self.tr("The model catalog could not be read: {0}").format(localized(exc)))
        self.entries = {m.name: m for m in catalog} if catalog is not None else {}
        self.rows = overview(catalog)
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            name = QTableWidgetItem(row.name)
            name.setToolTip(row.title or row.name)
            size = QTableWidgetItem(format_bytes(row.size) if row.size is not None else "—")
            size.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            state = QTableWidgetItem(self.state_text(row))
            if row.state == "broken":
                state.setForeground(theme.engine_color("failed", self.palette()))
            hashes = QTableWidgetItem(self.hash_text(row))
            uses = QTableWidgetItem(self.uses_text(row))
            for c, item in enumerate((name, size, state, hashes, uses)):
                self.table.setItem(r, c, item)
        names = [row.name for row in self.rows]
        if keep in names:
            self.table.selectRow(names.index(keep))
        elif self.rows and not self.table.selectedItems():
            self.table.selectRow(0)
        self._update()

    def uses(self, name: str) -> list[str]:
        """The uses ("files", "dictation") the installed model `name` runs."""
        dictation = self.current if self.dictation is None else self.dictation
        return [use for use, model in (("files", self.current), ("dictation", dictation)) if model and model == name]

    def uses_text(self, row: ModelStatus) -> str:
        uses = self.uses(row.name) if row.state == "installed" else []
        if uses == ["files", "dictation"]:
            return QCoreApplication.translate("ModelUse", "Files and dictation")
        if uses == ["files"]:
            return QCoreApplication.translate("ModelUse", "Files")
        if uses == ["dictation"]:
            return QCoreApplication.translate("ModelUse", "Dictation")
        return ""

    def state_text(self, row: ModelStatus) -> str:
        if row.state == "installed":
            return self.tr("Installed · in use") if self.uses(row.name) else self.tr("Installed")
        if row.state == "broken":
            return self.tr("Damaged (verify or remove it)")
        if row.state == "partial":
            return self.tr("Partially downloaded ({0}), resumable").format(format_bytes(row.cached))
        return self.tr("Not installed")

    def hash_text(self, row: ModelStatus) -> str:
        """What the catalog's download of this model is checked against ("—" for a model not in the catalog)."""
        if row.hashes is None:
            return "—"
        if row.hashes.state == "missing":
            return self.tr("None published")
        if row.hashes.state == "pinned":
            return self.tr("Pinned by you")
        return self.tr("Published")

    def hash_details(self, row: ModelStatus) -> str:
        if row.hashes is None:
            return ""
        if row.hashes.state == "missing":
            return self.tr(
                "The catalog publishes no SHA-256 for {0} of its {1} files: downloading this model "
                "cannot check them. Their hashes are pinned once the model verifies, and later "
                "downloads must match."
            ).format(row.hashes.missing, row.hashes.total)
        if row.hashes.state == "pinned":
            return self.tr(
                "Downloads are checked against SHA-256 hashes pinned by your first download, not "
                "published by the catalog."
            )
        return self.tr("Downloads are checked against the SHA-256 hashes the catalog publishes.")

    def selected_name(self) -> str | None:
        row = self.selected()
        return row.name if row is not None else None

    def selected(self) -> ModelStatus | None:
        rows = self.table.selectionModel().selectedRows()
        return self.rows[rows[0].row()] if rows and rows[0].row() < len(self.rows) else None

    def select(self, name: str) -> None:
        names = [row.name for row in self.rows]
        self.table.selectRow(names.index(name))

    def _update(self) -> None:
        row = self.selected()
        idle = self.idle
        self.buttons["download"].setEnabled(
            idle and row is not None and row.kind is not None and not row.installed and self._convertible(row)
        )
        self.buttons["download"].setText(
            self.tr("Resume download") if row is not None and row.state == "partial" else self.tr("Download")
        )
        self.buttons["import"].setEnabled(idle)
        self.buttons["verify"].setEnabled(idle and row is not None and row.installed)
        self.buttons["remove"].setEnabled(idle and row is not None and (row.installed or row.state == "partial"))
        self.buttons["forget"].setEnabled(idle and row is not None and row.hashes is not None and row.hashes.pinned > 0)
        for key, use in (("use", "files"), ("use_dictation", "dictation")):
            self.buttons[key].setEnabled(
                idle and row is not None and row.state == "installed" and use not in self.uses(row.name)
            )
        self.table.setEnabled(self._close_result is None)
        self._show_details(row)

    def _convertible(self, row: ModelStatus) -> bool:
        """Whether this build can install the catalog model of `row` (see `facts.convertible`)."""
        entry = self.entries.get(row.name)
        installed = {r.name for r in self.rows if r.installed}
        return entry is None or convertible(entry, self.entries, installed)

    def _show_details(self, row: ModelStatus | None) -> None:
        if row is None:
            self.details.setText("")
            return
        entry = self.entries.get(row.name)
        if entry is not None and entry.about is not None:  # its facts in the UI language, as the picker says them
            parts = [
                f"<b>{html.escape(short_title(entry))}</b>",
                facts_html(entry.about, self.palette()),
                html.escape(how_text(entry, self._convertible(row))),
            ]
        else:
            parts = [f"<b>{html.escape(row.title or row.name)}</b>"]
            if row.description:
                parts.append(html.escape(row.description))
        if row.path is not None:
            parts.append(self.tr("Folder: {0}").format(html.escape(str(row.path))))
        if row.state == "installed" and row.path is not None:
            parts += [html.escape(line) for line in self._installed_lines(row.path)]
        if row.problem:
            parts.append(html.escape(localized(row.problem)))
        if row.hashes is not None:
            parts.append(html.escape(self.hash_details(row)))
        self.details.setText("<br>".join(parts))

    @staticmethod
    def _installed_lines(folder: Path) -> list[str]:
        """What an installed model's manifest says of its copy: the mirror it came from, its timestamps."""
        try:
            manifest = load_manifest(folder)
        except TingjiError:
            return []  # the row says what is wrong with it
        return [line for line in (source_text(manifest), timestamps_text(manifest)) if line]

    # -- actions -----------------------------------------------------------------------------------

    def download_selected(self) -> None:
        row = self.selected()
        if row is not None:
            self.start(Task("download", row.name))

    def import_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a model folder to import"))
        if not folder:
            return
        name, ok = QInputDialog.getText(
            self, self.tr("Import model"), self.tr("Install it under the name:"), text=default_import_name(folder)
        )
        if ok and name.strip():
            self.start(Task("import", name.strip(), folder=folder))

    def start_import(self, folder: str, name: str) -> None:
        self.start(Task("import", name, folder=folder))

    def verify_selected(self) -> None:
        row = self.selected()
        if row is not None and row.installed:
            self.start(Task("verify", row.name))

    def remove_selected(self) -> None:
        row = self.selected()
        if row is None:
            return
        if row.installed:
            text = self.tr("Delete the model {0} from this computer?").format(row.name)
            if self.uses(row.name):
                text += "\n\n" + self.tr("Tingji is using it now; another installed model will be used instead.")
            task = Task("remove", row.name)
        elif row.state == "partial":
            text = self.tr(
                "Delete the partial download of {0} ({1})? The next download starts from the beginning."
            ).format(row.name, format_bytes(row.cached))
            task = Task("discard", row.name)
        else:
            return
        if self._confirm(self.tr("Remove model"), text):
            self.start(task)

    def _confirm(self, title: str, text: str) -> bool:
        """Yes or No, No the default: removing and forgetting cannot be undone."""
        answer = QMessageBox.question(
            self,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def forget_selected(self) -> None:
        """Forget the hashes a first download pinned (after a legitimate update of the model, say)."""
        row = self.selected()
        if row is None or row.hashes is None or not row.hashes.pinned:
            return
        text = self.tr(
            "Forget the {0} SHA-256 hashes pinned by the first download of {1}? The next download "
            "cannot be checked against them; it pins new ones once the model verifies."
        ).format(row.hashes.pinned, row.name)
        if self._confirm(self.tr("Forget pinned hashes"), text):
            self.start(Task("forget", row.name))

    def use_selected(self, use: str = "files") -> None:
        """Make the selected installed model the one `use` ("files" or "dictation") runs."""
        row = self.selected()
        if row is None or row.state != "installed":
            return
        if use == "dictation":
            self.dictation = row.name
            self.note(QCoreApplication.translate("ModelUse", "Dictation now uses {0}.").format(row.name))
        else:
            if self.dictation is None:  # dictation followed files: it keeps the model it runs
                self.dictation = self.current or None
            self.current = row.name
            self.note(QCoreApplication.translate("ModelUse", "Files now use {0}.").format(row.name))
        self.models_changed = False  # the window loads the chosen model now; no second reload
        self.modelChosen.emit(row.name, use)
        self.refresh()

    # -- running tasks -----------------------------------------------------------------------------

    def _task_done(self, select: str | None = None) -> None:
        if not self._end_task():
            self.refresh(select)

    def _on_finished(self, task: Task, result: object) -> None:
        if isinstance(result, InstallResult):  # download, import
            self.models_changed = True
            self.note(self.tr("Installed {0}.").format(task.name))
            for path, digest in result.pinned.items():
                self.note(
                    self.tr(
                        "{0}: not checked (no published SHA-256); pinned {1} now that the model "
                        "verified. Later downloads must match it."
                    ).format(path, digest)
                )
        elif isinstance(result, Manifest):  # verify
            self.note(self.tr("{0}: all {1} files match their SHA-256.").format(task.name, len(result.files)))
        elif task.kind == "remove":
            self.models_changed = True
            if task.name == self.current:
                self.current = ""
            if task.name == self.dictation:
                self.dictation = None
            self.note(self.tr("Removed {0}.").format(task.name))
        elif task.kind == "discard":
            self.note(self.tr("Deleted the partial download of {0}.").format(task.name))
        elif task.kind == "forget":
            self.note(
                self.tr("Forgot {0} pinned SHA-256 hashes of {1}; its next download pins new ones.").format(
                    len(result or {}), task.name
                )
            )
        self._task_done(task.name)

    def _on_failed(self, task: Task, error: TingjiError) -> None:
        self.note(self.tr("{0} failed: {1}").format(self._task_title(task), localized(error)))
        self._task_done(task.name)

    def _on_cancelled(self, task: Task) -> None:
        if task.kind == "download":
            self.note(
                self.tr("Download of {0} cancelled; downloading it again resumes where it stopped.").format(task.name)
            )
        else:
            self.note(self.tr("{0} cancelled.").format(self._task_title(task)))
        self._task_done(task.name)

    def _task_title(self, task: Task) -> str:
        titles = {
            "download": self.tr("Download of {0}"),
            "import": self.tr("Import of {0}"),
            "verify": self.tr("Verification of {0}"),
            "remove": self.tr("Removal of {0}"),
            "discard": self.tr("Deleting the partial download of {0}"),
            "forget": self.tr("Forgetting the pinned hashes of {0}"),
        }
        return titles.get(task.kind, "{0}").format(task.name)

    def note(self, text: str) -> None:
        self.log.appendPlainText(text)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Speech models"))
        self.heading.setText(
            self.tr(
                "Models Tingji can use. Downloads resume where they stopped; a file is "
                "checked against its SHA-256 where one is published or pinned (see the "
                "Hashes column), and every model is verified before it is installed."
            )
        )
        used_for = QCoreApplication.translate("ModelUse", "Used for")
        use_files = QCoreApplication.translate("ModelUse", "Use for files")
        use_dictation = QCoreApplication.translate("ModelUse", "Use for dictation")
        self.table.setHorizontalHeaderLabels(
            [self.tr("Model"), self.tr("Size"), self.tr("Status"), self.tr("Hashes"), used_for]
        )
        texts = {
            "download": self.tr("Download"),
            "import": self.tr("Import folder…"),
            "verify": self.tr("Verify"),
            "remove": self.tr("Remove"),
            "forget": self.tr("Forget pinned hashes"),
            "use": use_files,
            "use_dictation": use_dictation,
            "close": self.tr("Close"),
        }
        for key, text in texts.items():
            self.buttons[key].setText(text)
        self.buttons["verify"].setToolTip(self.tr("Check every file of the model against its SHA-256"))
        self.buttons["forget"].setToolTip(
            self.tr(
                "Forget the SHA-256 hashes pinned by this model's first "
                "download (after a legitimate update of the model)"
            )
        )
        self.buttons["import"].setToolTip(
            QCoreApplication.translate(
                "ModelUse",
                "Install a copy of a Tingji model folder or of a Fun-ASR-Nano GGUF release folder "
                "(CapsWriter-Offline), or convert an official checkpoint folder (Fun-ASR-Nano, SenseVoice-Small, "
                "Qwen3-ASR)",
            )
        )
        self.buttons["use"].setToolTip(
            QCoreApplication.translate("ModelUse", "Transcribe files (the queue) with this model")
        )
        self.buttons["use_dictation"].setToolTip(
            QCoreApplication.translate("ModelUse", "Dictate with this model; a fast one answers sooner")
        )
        self.task_box.retranslate()
        if self.rows:
            self.refresh()
