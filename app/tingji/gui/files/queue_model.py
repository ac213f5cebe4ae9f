"""The queue as a Qt table model, and the delegate that draws its progress column.

The model is a view of the store's jobs plus live progress (which only exists
in memory). It never writes to the store itself: drops and reorders are
reported by signal and the controller decides, so there is one place where the
queue changes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    Qt,
    Signal,
)
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionProgressBar, QStyleOptionViewItem

from .. import theme
from ..errors import localized_stored, localized_warnings
from ..speakers import choice_label
from ..timefmt import clock
from .storage import Job, Status

JOB_MIME = "application/x-tingji-job-ids"
# How each status is coloured (theme.tone_color).
STATUS_TONES = {
    Status.WAITING: "quiet",
    Status.RUNNING: "busy",
    Status.DONE: "good",
    Status.FAILED: "bad",
    Status.CANCELLED: "caution",
}
JobIdRole = Qt.ItemDataRole.UserRole + 1
FractionRole = Qt.ItemDataRole.UserRole + 2
StatusRole = Qt.ItemDataRole.UserRole + 3
AnyIndex = QModelIndex | QPersistentModelIndex


class Column(IntEnum):
    NAME = 0
    DURATION = 1
    STATUS = 2
    PROGRESS = 3


def status_label(status: Status, incomplete: bool = False) -> str:
    """Translated at call time, so a language switch shows at the next repaint. `incomplete`: done,
    but only part of the file could be read (Job.incomplete)."""
    if incomplete:
        return QCoreApplication.translate("Status", "Done with warnings")
    return {
        Status.WAITING: QCoreApplication.translate("Status", "Waiting"),
        Status.RUNNING: QCoreApplication.translate("Status", "Transcribing"),
        Status.DONE: QCoreApplication.translate("Status", "Done"),
        Status.FAILED: QCoreApplication.translate("Status", "Failed"),
        Status.CANCELLED: QCoreApplication.translate("Status", "Cancelled"),
    }[status]


class QueueModel(QAbstractTableModel):
    filesDropped = Signal(list)  # paths dropped on the queue from outside
    reorderRequested = Signal(list, int)  # job ids dragged, row they were dropped before (-1 = end)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._jobs: list[Job] = []
        self._rows: dict[int, int] = {}
        self._fraction: dict[int, float] = {}

    # -- feeding ---------------------------------------------------------------------

    def set_jobs(self, jobs: Sequence[Job]) -> None:
        self.beginResetModel()
        self._jobs = list(jobs)
        self._rows = {j.id: i for i, j in enumerate(self._jobs)}
        self._fraction = {k: v for k, v in self._fraction.items() if k in self._rows}
        self.endResetModel()

    def append_jobs(self, jobs: Sequence[Job]) -> None:
        if not jobs:
            return
        first = len(self._jobs)
        self.beginInsertRows(QModelIndex(), first, first + len(jobs) - 1)
        for job in jobs:
            self._rows[job.id] = len(self._jobs)
            self._jobs.append(job)
        self.endInsertRows()

    def remove_ids(self, job_ids: Sequence[int]) -> None:
        for row in sorted((self._rows[i] for i in set(job_ids) if i in self._rows), reverse=True):
            self.beginRemoveRows(QModelIndex(), row, row)
            job = self._jobs.pop(row)
            self._fraction.pop(job.id, None)
            self._rows = {j.id: i for i, j in enumerate(self._jobs)}
            self.endRemoveRows()

    def reorder(self, jobs: Sequence[Job]) -> None:
        """Same jobs, new order: a layout change, so selections follow their rows."""
        self.layoutAboutToBeChanged.emit()
        id_at_old_row = {row: job_id for job_id, row in self._rows.items()}
        self._jobs = list(jobs)
        self._rows = {j.id: i for i, j in enumerate(self._jobs)}
        old, new = [], []
        for index in self.persistentIndexList():
            job = id_at_old_row.get(index.row())
            if job is None or job not in self._rows:
                continue
            old.append(index)
            new.append(self.index(self._rows[job], index.column()))
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    def update_job(self, job: Job) -> None:
        row = self._rows.get(job.id)
        if row is None:
            return
        self._jobs[row] = job
        if job.status is not Status.RUNNING:
            self._fraction.pop(job.id, None)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(Column) - 1))

    def set_fraction(self, job_id: int, fraction: float) -> None:
        row = self._rows.get(job_id)
        if row is None:
            return
        self._fraction[job_id] = fraction
        self.dataChanged.emit(self.index(row, Column.PROGRESS), self.index(row, Column.PROGRESS))

    def job(self, row: int) -> Job | None:
        return self._jobs[row] if 0 <= row < len(self._jobs) else None

    def job_by_id(self, job_id: int) -> Job | None:
        row = self._rows.get(job_id)
        return None if row is None else self._jobs[row]

    def row_of(self, job_id: int) -> int:
        return self._rows.get(job_id, -1)

    def jobs(self) -> list[Job]:
        return list(self._jobs)

    def fraction(self, job_id: int) -> float | None:
        return self._fraction.get(job_id)

    def retranslate(self) -> None:
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(Column) - 1)
        if self._jobs:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._jobs) - 1, len(Column) - 1))

    # -- QAbstractTableModel -----------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._jobs)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(Column)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = Qt.AlignmentFlag.AlignRight if section == Column.DURATION else Qt.AlignmentFlag.AlignLeft
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return (self.tr("File"), self.tr("Duration"), self.tr("Status"), self.tr("Progress"))[section]

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._jobs):
            return None
        job, col = self._jobs[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == Column.NAME:
                return job.name
            if col == Column.DURATION:
                return clock(job.duration) if job.duration is not None else ""
            if col == Column.STATUS:
                return status_label(job.status, job.incomplete)
            if col == Column.PROGRESS and job.status is Status.FAILED:
                return localized_stored(job.error, job.error_code)
            if col == Column.PROGRESS and job.incomplete:
                return localized_warnings(job.warning, job.warning_code)
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            if job.status is Status.FAILED and job.error:
                return f"{job.path}\n{localized_stored(job.error, job.error_code)}"
            lines = [job.path]
            if job.incomplete:
                lines.append(
                    self.tr("Only part of this file was transcribed: {0}").format(
                        localized_warnings(job.warning, job.warning_code)
                    )
                )
            if job.speakers is not None:
                lines.append(self.tr("Identify speakers: {0}").format(choice_label(job.speakers)))
            if job.exported:
                lines.append(self.tr("Saved as {0}").format(", ".join(Path(p).name for p in job.exported)))
            return "\n".join(lines)
        if role == Qt.ItemDataRole.ForegroundRole and col in (Column.STATUS, Column.PROGRESS):
            return theme.warning_color() if job.incomplete else theme.tone_color(STATUS_TONES[job.status])
        if role == Qt.ItemDataRole.TextAlignmentRole and col == Column.DURATION:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == JobIdRole:
            return job.id
        if role == StatusRole:
            return job.status
        if role == FractionRole:
            if job.status is Status.DONE and not job.incomplete:  # else the reason is shown, as for a failure
                return 1.0
            if job.status is Status.RUNNING:
                return self._fraction.get(job.id, 0.0)
            return None
        return None

    # -- drag and drop: reorder waiting files, accept files from outside ------------------

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if not index.isValid():
            return Qt.ItemFlag.ItemIsDropEnabled
        job = self._jobs[index.row()]
        if job.status is Status.WAITING:
            base |= Qt.ItemFlag.ItemIsDragEnabled
        return base

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction | Qt.DropAction.CopyAction | Qt.DropAction.LinkAction

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [JOB_MIME, "text/uri-list"]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        ids = sorted({self._jobs[i.row()].id for i in indexes if i.isValid()}, key=lambda j: self._rows[j])
        data = QMimeData()
        data.setData(JOB_MIME, json.dumps(ids).encode())
        return data

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: AnyIndex) -> bool:
        return data.hasFormat(JOB_MIME) or data.hasUrls()

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: AnyIndex) -> bool:
        if data.hasFormat(JOB_MIME):
            ids = [int(i) for i in json.loads(bytes(data.data(JOB_MIME).data()).decode() or "[]")]
            target = row if row >= 0 else (parent.row() if parent.isValid() else -1)
            self.reorderRequested.emit(ids, target)
            return False  # the controller reorders; the view must not remove the dragged rows
        paths = [u.toLocalFile() for u in data.urls() if u.isLocalFile()]
        if paths:
            self.filesDropped.emit(paths)
            return True
        return False


class ProgressDelegate(QStyledItemDelegate):
    """A real progress bar for running/done files, the reason in colour for failed ones and for
    files done with warnings."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        fraction = index.data(FractionRole)
        if fraction is None:  # a failure reason: keep its start readable, the tooltip has it all
            opt = QStyleOptionViewItem(option)
            opt.textElideMode = Qt.TextElideMode.ElideRight
            super().paint(painter, opt, index)
            return
        # Selection background first, as for any cell.
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, opt.widget)
        bar = QStyleOptionProgressBar()
        r: QRect = option.rect.adjusted(6, 5, -6, -5)
        bar.rect = r  # type: ignore[attr-defined]
        bar.minimum, bar.maximum = 0, 1000  # type: ignore[attr-defined]
        bar.progress = int(round(max(0.0, min(1.0, fraction)) * 1000))  # type: ignore[attr-defined]
        bar.text = f"{int(fraction * 100)}%"  # type: ignore[attr-defined]
        bar.textVisible = True  # type: ignore[attr-defined]
        bar.textAlignment = Qt.AlignmentFlag.AlignCenter  # type: ignore[attr-defined]
        bar.state = option.state | QStyle.StateFlag.State_Horizontal  # type: ignore[attr-defined]
        bar.palette = option.palette  # type: ignore[attr-defined]
        bar.fontMetrics = option.fontMetrics  # type: ignore[attr-defined]
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter, opt.widget)
