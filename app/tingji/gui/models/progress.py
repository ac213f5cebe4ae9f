"""A running model task as the user sees it: its stage, a progress bar, speed, time left, Cancel.

Shared by the model manager and the first-run model picker, which both run
`ModelWorker` tasks (downloads, imports, conversions). Its texts keep the
model manager's translation context, where they were first written.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from ...models.diskspace import format_bytes


def eta_seconds(done: int, total: int | None, bps: float) -> float | None:
    """Seconds left at the current speed, or None when it cannot be known."""
    if not total or bps <= 0 or done > total:
        return None
    return (total - done) / bps


def format_duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return QCoreApplication.translate("ModelManagerDialog", "{0} s").format(s)
    if s < 3600:
        return QCoreApplication.translate("ModelManagerDialog", "{0} min {1} s").format(s // 60, s % 60)
    return QCoreApplication.translate("ModelManagerDialog", "{0} h {1} min").format(s // 3600, s % 3600 // 60)


def stage_text(stage: str) -> str:
    """A store progress stage ("verifying", "converting: …", "model.pt (3/9)") in the UI language."""
    if stage == "verifying":
        return QCoreApplication.translate("ModelManagerDialog", "Verifying files")
    if stage == "extracting":
        return QCoreApplication.translate("ModelManagerDialog", "Extracting")
    if stage == "loading":
        return QCoreApplication.translate("ModelManagerDialog", "Loading the model to check it")
    if stage == "copying":
        return QCoreApplication.translate("ModelManagerDialog", "Copying files")
    if stage == "converting":
        return QCoreApplication.translate("ModelManagerDialog", "Converting")
    if stage.startswith("converting: "):
        return QCoreApplication.translate("ModelManagerDialog", "Converting: {0}").format(stage[len("converting: ") :])
    return QCoreApplication.translate("ModelManagerDialog", "Downloading {0}").format(stage)


class TaskProgress(QWidget):
    """Hidden while idle; `begin()` shows it busy, `show_progress()` follows the worker's `progress`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stage_label = QLabel()
        self.stage_label.setWordWrap(True)
        self.progress_bar = QProgressBar(self)  # parented now: see gui/__init__.py on ownership
        self.progress_bar.setTextVisible(False)
        self.speed_label = QLabel(self)
        self.cancel_button = QPushButton(self)
        row = QHBoxLayout()
        row.addWidget(self.progress_bar, 1)
        row.addWidget(self.speed_label)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stage_label)
        layout.addLayout(row)
        self.retranslate()
        self.hide()

    def begin(self) -> None:
        self.stage_label.setText(QCoreApplication.translate("ModelManagerDialog", "Starting…"))
        self.progress_bar.setRange(0, 0)
        self.speed_label.setText("")
        self.cancel_button.setEnabled(True)
        self.show()

    def cancelling(self) -> None:
        self.cancel_button.setEnabled(False)
        self.stage_label.setText(QCoreApplication.translate("ModelManagerDialog", "Cancelling…"))

    def show_progress(self, stage: str, done: int, total: int | None, bps: float) -> None:
        self.stage_label.setText(stage_text(stage))
        if total:
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(min(1000, int(1000 * done / total)))
        else:
            self.progress_bar.setRange(0, 0)  # busy indicator: the size is not known
        pieces = (
            [
                QCoreApplication.translate("ModelManagerDialog", "{0} of {1}").format(
                    format_bytes(done), format_bytes(total)
                )
                if total
                else format_bytes(done)
            ]
            if done
            else []
        )
        if bps > 0:
            pieces.append(QCoreApplication.translate("ModelManagerDialog", "{0}/s").format(format_bytes(bps)))
        eta = eta_seconds(done, total, bps)
        if eta is not None:
            pieces.append(QCoreApplication.translate("ModelManagerDialog", "{0} left").format(format_duration(eta)))
        self.speed_label.setText(" · ".join(pieces))

    def retranslate(self) -> None:
        self.cancel_button.setText(QCoreApplication.translate("ModelManagerDialog", "Cancel"))
