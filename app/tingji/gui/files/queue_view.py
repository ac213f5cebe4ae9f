"""The left-hand panel: the queue table, its empty-state hint and its buttons.

The table accepts drags both ways: waiting rows can be dragged to a new place
and files from the file manager can be dropped on it (the model turns both
into controller calls). Whatever it does not want propagates to the window,
which accepts files anywhere.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QPoint, QRect, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .. import icons, theme
from ..settings import SPEAKER_CHOICES
from ..speakers import choice_label, no_model_reason, speakers_available
from .controller import QueueController
from .queue_model import Column, ProgressDelegate, status_label
from .storage import Job, Status

STATUS_WIDTH = 110  # the status column's least width (px)


class QueueTable(QTableView):
    """A QTableView that shows a drop hint when empty."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hint_title = ""
        self.hint_text = ""

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.model() is not None and self.model().rowCount() > 0:
            return
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = self.viewport().rect()
        secondary = theme.secondary_text(self.palette())
        icon_size = 56
        top = rect.center().y() - 70
        icon = icons.glyph("drop", self.palette(), color=secondary)
        icon.paint(painter, QRect(rect.center().x() - icon_size // 2, top, icon_size, icon_size))
        title_font = self.font()
        title_font.setPointSizeF(title_font.pointSizeF() * 1.3)
        title_font.setBold(True)
        painter.setFont(title_font)
        painter.setPen(self.palette().color(QPalette.ColorRole.Text))
        text_rect = QRect(rect.left() + 16, top + icon_size + 12, rect.width() - 32, 40)
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, self.hint_title)
        painter.setFont(self.font())
        painter.setPen(secondary)
        painter.drawText(
            text_rect.translated(0, 40).adjusted(0, 0, 0, 40),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
            self.hint_text,
        )
        painter.end()


class QueuePanel(QWidget):
    selectionChanged = Signal()

    def __init__(self, controller: QueueController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._build_table()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        layout.setSpacing(4)
        layout.addWidget(self.table, 1)
        layout.addLayout(self._build_footer())
        self.delete_action = QAction(self)
        self.delete_action.setShortcut(QKeySequence.StandardKey.Delete)
        self.delete_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.delete_action.triggered.connect(self.remove_selected)
        self.table.addAction(self.delete_action)
        self.refresh_icons()
        self.retranslate()
        self.update_buttons()  # nothing selected yet: Up/Down/Remove/Retry start disabled

    def _build_table(self) -> None:
        """The queue's rows (drag to reorder, drop files in), kept in step with the controller's model."""
        controller = self.controller
        self.table = QueueTable()
        self.table.setModel(controller.model)
        self.table.setItemDelegateForColumn(Column.PROGRESS, ProgressDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 16)
        self.table.setDragEnabled(True)
        self.table.setAcceptDrops(True)
        self.table.setDropIndicatorShown(True)
        self.table.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.table.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.table.setDragDropOverwriteMode(False)
        header = self.table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(Column.NAME, QHeaderView.ResizeMode.Stretch)
        for col, width in ((Column.DURATION, 80), (Column.STATUS, STATUS_WIDTH), (Column.PROGRESS, 150)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            self.table.setColumnWidth(col, width)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        controller.model.dataChanged.connect(lambda *_: self.update_buttons())
        controller.model.dataChanged.connect(lambda *_: self._fit_status_column())
        controller.model.modelReset.connect(self._fit_status_column)
        controller.model.modelReset.connect(self.update_buttons)
        controller.model.rowsInserted.connect(lambda *_: self.update_buttons())
        controller.model.rowsRemoved.connect(lambda *_: self._selection_changed())

    def _build_footer(self) -> QHBoxLayout:
        """Up, Down, Remove and Retry for the selected rows, and the queue's summary."""

        def button(name: str, slot) -> QToolButton:
            b = QToolButton(self)  # parented now: see gui/__init__.py on ownership
            b.setProperty("glyph", name)
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            b.setAutoRaise(True)
            b.clicked.connect(slot)
            return b

        self.up_button = button("up", lambda: self._move(-1))
        self.down_button = button("down", lambda: self._move(1))
        self.remove_button = button("remove", self.remove_selected)
        self.retry_button = button("retry", lambda: self.controller.retry(self.selected_ids()))
        self.summary = QLabel(self)
        footer = QHBoxLayout()
        footer.setContentsMargins(0, 0, 0, 0)
        footer.setSpacing(2)
        for b in (self.up_button, self.down_button, self.remove_button, self.retry_button):
            footer.addWidget(b)
        footer.addStretch(1)
        footer.addWidget(self.summary)
        return footer

    # -- selection -----------------------------------------------------------------------

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [job.id for r in rows if (job := self.controller.model.job(r)) is not None]

    def selected_jobs(self) -> list[Job]:
        return [j for i in self.selected_ids() if (j := self.controller.model.job_by_id(i)) is not None]

    def current_job(self) -> Job | None:
        jobs = self.selected_jobs()
        return jobs[0] if len(jobs) == 1 else None

    def select_job(self, job_id: int) -> None:
        """Select exactly this job's row. Not selectRow(): that follows the keyboard modifiers
        Qt last saw, so a Ctrl still "down" (e.g. after a dictation paste) would add to the selection."""
        row = self.controller.model.row_of(job_id)
        if row >= 0:
            index = self.controller.model.index(row, 0)
            flags = QItemSelectionModel.SelectionFlag
            self.table.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)

    def _selection_changed(self) -> None:
        self.update_buttons()
        self.selectionChanged.emit()

    # -- actions ------------------------------------------------------------------------

    def update_buttons(self) -> None:
        jobs = self.selected_jobs()
        model = self.controller.model
        rows = [model.row_of(j.id) for j in jobs]
        single = len(jobs) == 1
        self.up_button.setEnabled(single and rows[0] > 0 and jobs[0].status is Status.WAITING)
        self.down_button.setEnabled(single and rows[0] < model.rowCount() - 1 and jobs[0].status is Status.WAITING)
        self.remove_button.setEnabled(bool(jobs))
        self.retry_button.setEnabled(any(j.status.finished for j in jobs))
        self._update_summary()

    def _update_summary(self) -> None:
        jobs = self.controller.model.jobs()
        done = sum(j.status is Status.DONE for j in jobs)
        failed = sum(j.status is Status.FAILED for j in jobs)
        if not jobs:
            self.summary.setText("")
            return
        # "Files: 5 · Done: 4" rather than "5 files": no plural forms to get wrong in any language.
        text = self.tr("Files: {0} · Done: {1}").format(len(jobs), done)
        if failed:
            text += " · " + self.tr("Failed: {0}").format(failed)
        self.summary.setText(text)

    def _move(self, delta: int) -> None:
        job = self.current_job()
        if job is not None:
            self.controller.move(job.id, delta)
            self.select_job(job.id)

    def remove_selected(self) -> None:
        self.controller.remove(self.selected_ids())

    def _context_menu(self, pos: QPoint) -> None:
        jobs = self.selected_jobs()
        if jobs:
            self.context_menu(jobs).exec(self.table.viewport().mapToGlobal(pos))

    def speakers_menu(self, jobs: list[Job]) -> QMenu:
        """The files' own "Identify speakers" (for their next run), greyed with the reason when no speaker
        model is installed."""
        menu = QMenu(self.tr("Identify speakers"), self)
        available = speakers_available()
        if not available:
            reason = menu.addAction(no_model_reason())
            reason.setEnabled(False)
            menu.addSeparator()
        ids = [j.id for j in jobs]
        current = {j.speakers for j in jobs}
        setting = self.controller.settings.speakers
        choices: list[tuple[str | None, str]] = [(None, self.tr("As in Settings ({0})").format(choice_label(setting)))]
        choices += [(value, choice_label(value)) for value in SPEAKER_CHOICES]
        for value, label in choices:
            action = menu.addAction(label, lambda v=value: self.controller.set_speakers(ids, v))
            action.setCheckable(True)
            action.setChecked(current == {value})
            action.setEnabled(available)
        return menu

    def context_menu(self, jobs: list[Job]) -> QMenu:
        """What can be done with the selected files."""
        menu = QMenu(self)
        active = [j.id for j in jobs if j.status in (Status.WAITING, Status.RUNNING)]
        if active:
            menu.addAction(self.tr("Cancel"), lambda: self.controller.cancel(active))
        if any(j.status.finished for j in jobs):
            menu.addAction(self.tr("Transcribe again"), lambda: self.controller.retry([j.id for j in jobs]))
        if self.up_button.isEnabled():
            menu.addAction(self.tr("Move up"), lambda: self._move(-1))
        if self.down_button.isEnabled():
            menu.addAction(self.tr("Move down"), lambda: self._move(1))
        if len(jobs) == 1:
            folder = str(Path(jobs[0].path).parent)
            menu.addAction(
                self.tr("Open containing folder"), lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(folder))
            )
        menu.addMenu(self.speakers_menu(jobs))
        menu.addSeparator()
        menu.addAction(self.tr("Remove from list"), self.remove_selected)
        return menu

    # -- looks ---------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.up_button.setText(self.tr("Up"))
        self.up_button.setToolTip(self.tr("Move the selected file up the queue"))
        self.down_button.setText(self.tr("Down"))
        self.down_button.setToolTip(self.tr("Move the selected file down the queue"))
        self.remove_button.setText(self.tr("Remove"))
        self.remove_button.setToolTip(self.tr("Remove the selected files from the list (Del)"))
        self.retry_button.setText(self.tr("Retry"))
        self.retry_button.setToolTip(self.tr("Transcribe the selected files again"))
        self.table.hint_title = self.tr("Drop audio or video files here")
        self.table.hint_text = self.tr("or folders, or use Add files / Add folder above")
        self.controller.model.retranslate()
        self._fit_status_column()
        self.table.viewport().update()

    def _fit_status_column(self) -> None:
        """Widen the status column when a status shown needs it ("Done with warnings" in English); the
        file names keep the room otherwise. Never narrows it (the user may have widened it)."""
        labels = {status_label(*kind) for kind in {(j.status, j.incomplete) for j in self.controller.model.jobs()}}
        widest = max((self.table.fontMetrics().horizontalAdvance(t) + 16 for t in labels), default=0)
        if widest > self.table.columnWidth(Column.STATUS):
            self.table.setColumnWidth(Column.STATUS, widest)
        self._update_summary()

    def refresh_icons(self) -> None:
        for b in (self.up_button, self.down_button, self.remove_button, self.retry_button):
            b.setIcon(icons.glyph(str(b.property("glyph")), self.palette()))
        self.summary.setStyleSheet(f"color: {theme.secondary_text(self.palette()).name()};")
        self.table.viewport().update()
