"""The right-hand panel: the selected file's transcript as timed segments.

Clicking a segment plays that stretch of the source; Copy all and Export act
on the whole transcript. While a file is transcribing, its segments appear as
each window finishes (fed from the controller's live segments), so a long file
shows text long before it is done.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QFont, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QPushButton,
    QStackedWidget,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...engine.sessions import PROVIDER_NAMES
from ...engine.transcript import Segment, Transcript
from ...engine.writers import FORMATS, render, write
from ...errors import TingjiError
from .. import icons, theme
from ..errors import localized, localized_stored, localized_warnings
from ..speakers import speaker_color
from ..timefmt import clock
from .player import SegmentPlayer
from .storage import Job, Status

AnyIndex = QModelIndex | QPersistentModelIndex


class SegmentModel(QAbstractTableModel):
    """Rows of (time, speaker, text); the playing row is shown bold, each speaker's name in its colour."""

    TIME, SPEAKER, TEXT = range(3)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.segments: list[Segment] = []
        self.speakers: list[str] = []  # the transcript's speaker names, by Segment.speaker
        self.playing_row = -1

    def set_segments(self, segments: Sequence[Segment], speakers: Sequence[str] = ()) -> None:
        self.beginResetModel()
        self.segments = list(segments)
        self.speakers = list(speakers)
        self.playing_row = -1
        self.endResetModel()

    def speaker_of(self, row: int) -> int | None:
        """The speaker number of a row; None without one."""
        if not 0 <= row < len(self.segments):
            return None
        who = self.segments[row].speaker
        return who if who is not None and 0 <= who < len(self.speakers) else None

    def append(self, segments: Sequence[Segment]) -> None:
        if not segments:
            return
        first = len(self.segments)
        self.beginInsertRows(QModelIndex(), first, first + len(segments) - 1)
        self.segments.extend(segments)
        self.endInsertRows()

    def set_playing(self, row: int) -> None:
        old, self.playing_row = self.playing_row, row
        for r in {old, row}:
            if 0 <= r < len(self.segments):
                self.dataChanged.emit(self.index(r, 0), self.index(r, self.TEXT))

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.segments)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else 3

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return (self.tr("Time"), self.tr("Speaker"), self.tr("Text"))[section]
        return None

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        seg, col = self.segments[index.row()], index.column()
        if col == self.SPEAKER:
            return self._speaker_data(index.row(), role)
        if role == Qt.ItemDataRole.DisplayRole:
            return clock(seg.start) if col == self.TIME else seg.text.strip()
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 0:
            return f"{clock(seg.start, tenths=True)} – {clock(seg.end, tenths=True)}"
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0:
            return theme.tone_color("busy") if index.row() == self.playing_row else theme.secondary_text()
        if role == Qt.ItemDataRole.FontRole and index.row() == self.playing_row:
            font = QFont()
            font.setBold(True)
            return font
        return None

    def _speaker_data(self, row: int, role: int) -> Any:
        who = self.speaker_of(row)
        if who is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.speakers[who]
        if role == Qt.ItemDataRole.ForegroundRole:
            return speaker_color(who)
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tr("Double-click to rename {0} everywhere in this file").format(self.speakers[who])
        return None


class TranscriptPanel(QWidget):
    message = Signal(str)  # for the status bar
    speakerRenamed = Signal(int, int, str)  # job id, speaker number, the new name
    voiceRemembered = Signal(int, int, str)  # job id, speaker number, the name to remember it by

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job: Job | None = None
        self.transcript: Transcript | None = None
        self.unsaved = False
        self.name_dialog: QInputDialog | None = None  # the last name asked for (rename, remember)
        self.player = SegmentPlayer(self)
        self.segments = SegmentModel(self)
        self._build_header()
        self._build_table()
        buttons = self._build_buttons()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(6)
        layout.addWidget(self.title)
        layout.addWidget(self.meta)
        layout.addWidget(self.warning)
        layout.addWidget(self.exported)
        layout.addWidget(self.stack, 1)
        layout.addLayout(buttons)
        self.player.playingChanged.connect(self._on_playing)
        self.player.error.connect(lambda text: self.message.emit(self.tr("Cannot play this file: {0}").format(text)))
        self.refresh_icons()
        self.retranslate()

    def _build_header(self) -> None:
        """The file's name, its facts, and the lines about a partial transcript or where it was saved."""
        self.title = QLabel()
        self.title.setObjectName("transcriptTitle")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.meta = QLabel()
        self.meta.setObjectName("transcriptMeta")
        # Done with warnings: what part of the file is missing, and why (a damaged file); a transcript
        # the queue database could not keep.
        self.warning = QLabel()
        self.warning.setObjectName("transcriptWarning")
        self.warning.setWordWrap(True)
        self.warning.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warning.hide()
        self.exported = QLabel()  # where automatic export put it (the names it chose)
        self.exported.setObjectName("transcriptExported")
        self.exported.setWordWrap(True)
        self.exported.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.exported.hide()

    def _build_table(self) -> None:
        """The segments (a click plays one), or in their place a line saying why there are none."""
        self.table = QTableView()
        self.table.setObjectName("segmentTable")
        self.table.setStyleSheet("#segmentTable::item { padding: 5px 6px; }")
        self.table.setModel(self.segments)
        self.table.setWordWrap(True)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(SegmentModel.TIME, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SegmentModel.SPEAKER, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SegmentModel.TEXT, QHeaderView.ResizeMode.Stretch)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.clicked.connect(self._play_row)
        self.table.doubleClicked.connect(self._double_clicked)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        QShortcut(QKeySequence.StandardKey.Copy, self.table, self.copy_selected)

        self.placeholder = QLabel()
        self.placeholder.setObjectName("transcriptPlaceholder")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.placeholder.setMargin(24)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.table)

    def _build_buttons(self) -> QHBoxLayout:
        """Copy, Export (a menu of formats), the play hint and Stop."""
        self.copy_button = QPushButton(self)  # parented now: see gui/__init__.py on ownership
        self.copy_button.clicked.connect(self.copy_all)
        self.export_button = QToolButton(self)
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.export_menu = QMenu(self)
        self.export_actions = {fmt: self.export_menu.addAction(fmt.upper()) for fmt in FORMATS}
        for fmt, action in self.export_actions.items():
            action.triggered.connect(lambda _=False, f=fmt: self.export(f))
        self.export_button.setMenu(self.export_menu)
        self.stop_button = QPushButton(self)
        self.stop_button.clicked.connect(self.stop_playback)
        self.stop_button.setVisible(False)
        self.play_hint = QLabel(self)
        self.play_hint.setObjectName("playHint")

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        buttons.addWidget(self.play_hint)
        buttons.addWidget(self.stop_button)
        return buttons

    # -- what is shown ---------------------------------------------------------------------

    def show_job(
        self,
        job: Job | None,
        transcript: Transcript | None = None,
        live: Sequence[Segment] | None = None,
        *,
        unsaved: bool = False,
    ) -> None:
        """Show a job: its stored transcript, the live segments of a running one, or why there is none.
        `unsaved`: the transcript exists only in memory (the queue database could not be written)."""
        if self.job is None or job is None or job.id != self.job.id:
            self.stop_playback()
        self.job = job
        self.unsaved = unsaved
        if transcript is None and live is not None and job is not None:
            transcript = Transcript(
                segments=list(live), duration=0.0, model="", provider="", decoder_device="", source=job.path
            )
        self.transcript = transcript
        self.segments.set_segments(transcript.segments if transcript else [], transcript.speakers if transcript else [])
        self.table.setColumnHidden(SegmentModel.SPEAKER, not self.segments.speakers)
        self._render()

    def append_live(self, segments: Sequence[Segment]) -> None:
        if self.transcript is None or not segments:
            return
        self.transcript.segments.extend(segments)
        self.segments.append(segments)
        self._render()

    def shown_segments(self) -> list[str]:
        return [s.text.strip() for s in self.segments.segments]

    def _render(self) -> None:
        job, t = self.job, self.transcript
        has_text = bool(t and t.segments)
        self.copy_button.setEnabled(has_text)
        self.export_button.setEnabled(has_text and job is not None and job.status is not Status.RUNNING)
        self.title.setText(job.name if job else self.tr("Transcript"))
        self.title.setToolTip(job.path if job else "")
        self.meta.setText(self._meta_text())
        self.meta.setVisible(bool(self.meta.text()))
        notes = []
        if job is not None and job.incomplete:
            shown = localized_warnings(job.warning, job.warning_code)
            notes.append(self.tr("⚠ Only part of this file was transcribed: {0}").format(shown))
        if job is not None and self.unsaved and job.exported:
            notes.append(
                self.tr(
                    "⚠ Not in Tingji's queue database (it could not be written); the files "
                    "saved beside the source have this transcript."
                )
            )
        elif job is not None and self.unsaved:
            notes.append(
                self.tr(
                    "⚠ Not saved: Tingji could not write this transcript to its queue database. Export it to keep it."
                )
            )
        self.warning.setText("\n".join(notes))
        self.warning.setVisible(bool(notes))
        names = [Path(p).name for p in job.exported] if job is not None else []
        self.exported.setText(self.tr("Saved beside the source as {0}").format(", ".join(names)) if names else "")
        self.exported.setToolTip("\n".join(job.exported) if job is not None else "")
        self.exported.setVisible(bool(names))
        if has_text:
            self.stack.setCurrentWidget(self.table)
            return
        self.stack.setCurrentWidget(self.placeholder)
        if job is None:
            text = self.tr("Select a file in the queue to see its transcript.")
        elif job.status is Status.WAITING:
            text = self.tr("Waiting to be transcribed.")
        elif job.status is Status.RUNNING:
            text = self.tr("Transcribing…\nText appears here as it is recognised.")
        elif job.status is Status.FAILED:
            text = self.tr("This file could not be transcribed:\n{0}").format(
                localized_stored(job.error, job.error_code)
            )
        elif job.status is Status.CANCELLED:
            text = self.tr("Cancelled before any text was recognised.")
        else:
            text = self.tr("No speech was found in this file.")
        self.placeholder.setText(text)

    def _meta_text(self) -> str:
        job, t = self.job, self.transcript
        if job is None:
            return ""
        parts = []
        duration = job.duration if job.duration is not None else (t.duration if t and t.duration else None)
        if duration is not None:
            parts.append(clock(duration))
        if t is not None and t.model:
            parts.append(t.model)
        if t is not None and t.provider:
            where = PROVIDER_NAMES.get(t.provider, t.provider)
            parts.append(f"{where} ({t.device})" if t.device else where)
        if job.status is Status.DONE and job.elapsed_s is not None:
            parts.append(self.tr("transcribed in {0:.1f} s").format(job.elapsed_s))
        if job.status is Status.CANCELLED and t is not None and t.segments:
            parts.append(self.tr("cancelled: partial transcript"))
        return "  ·  ".join(parts)

    def retranslate(self) -> None:
        self.copy_button.setText(self.tr("Copy all"))
        self.copy_button.setToolTip(self.tr("Copy the whole transcript to the clipboard"))
        self.export_button.setText(self.tr("Export"))
        self.export_button.setToolTip(self.tr("Save the transcript as TXT, SRT, VTT or JSON"))
        self.stop_button.setText(self.tr("Stop"))
        self.segments.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, SegmentModel.TEXT)
        self._render()
        self._on_playing(self.player.is_playing())

    def refresh_icons(self) -> None:
        pal = self.palette()
        self.copy_button.setIcon(icons.glyph("copy", pal))
        self.export_button.setIcon(icons.glyph("export", pal))
        self.stop_button.setIcon(icons.glyph("stop", pal))
        secondary = theme.secondary_text(pal).name()
        self.meta.setStyleSheet(f"color: {secondary};")
        self.exported.setStyleSheet(f"color: {secondary};")
        self.warning.setStyleSheet(f"color: {theme.warning_color(pal).name()};")
        self.play_hint.setStyleSheet(f"color: {secondary};")
        self.placeholder.setStyleSheet(f"color: {secondary}; font-size: 11pt;")

    # -- actions --------------------------------------------------------------------------

    def copy_all(self) -> None:
        if self.transcript is not None:
            t = self.transcript  # with speakers: "Name: text" lines, as the TXT export
            QGuiApplication.clipboard().setText(render(t, "txt").rstrip("\n") if t.speakers else t.text)
            self.message.emit(self.tr("Transcript copied to the clipboard."))

    def copy_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        if rows:
            part = Transcript(
                segments=[self.segments.segments[r] for r in rows],
                duration=0.0,
                model="",
                provider="",
                decoder_device="",
            )
            QGuiApplication.clipboard().setText(part.text)

    def export(self, fmt: str, path: str | None = None) -> Path | None:
        """Ask where (unless `path` is given) and write one format; errors go to the status bar."""
        if self.transcript is None or self.job is None:
            return None
        if path is None:
            src = Path(self.job.path)
            filters = {
                "txt": self.tr("Plain text (*.txt)"),
                "srt": self.tr("SubRip subtitles (*.srt)"),
                "vtt": self.tr("WebVTT subtitles (*.vtt)"),
                "json": self.tr("JSON with timings (*.json)"),
            }
            path, _ = QFileDialog.getSaveFileName(
                self, self.tr("Export transcript"), str(src.with_name(f"{src.stem}.{fmt}")), filters[fmt]
            )
            if not path:
                return None
            if not Path(path).suffix:
                path += f".{fmt}"
        try:
            written = write(self.transcript, path, fmt)
        except TingjiError as exc:
            self.message.emit(localized(exc))
            return None
        self.message.emit(self.tr("Saved {0}").format(written))
        return written

    # -- speakers ---------------------------------------------------------------------------

    def _double_clicked(self, index: QModelIndex) -> None:
        if index.column() == SegmentModel.SPEAKER and self.segments.speaker_of(index.row()) is not None:
            self.stop_playback()  # the double-click's first click started playing
            self.ask_rename(self.segments.speaker_of(index.row()))

    def _context_menu(self, pos: QPoint) -> None:
        who = self.segments.speaker_of(self.table.indexAt(pos).row())
        if who is None or self.job is None:
            return
        menu = self.speaker_menu(who)
        menu.exec(self.table.viewport().mapToGlobal(pos))

    def speaker_menu(self, speaker: int) -> QMenu:
        """Rename the speaker, or remember its voice (only with its print, and not while the file runs)."""
        name = self.segments.speakers[speaker]
        menu = QMenu(self)
        menu.addAction(self.tr("Rename {0}…").format(name), lambda: self.ask_rename(speaker))
        remember = menu.addAction(self.tr("Remember this voice…"), lambda: self.ask_remember(speaker))
        has_print = self.transcript is not None and speaker < len(self.transcript.voice_prints)
        remember.setEnabled(has_print and self.job is not None and self.job.status is not Status.RUNNING)
        remember.setToolTip(self.tr("Keep this speaker's voice print (never audio) so later files name it"))
        return menu

    def ask_rename(self, speaker: int) -> None:
        """Ask for a speaker's new name (a non-modal dialog: `name_dialog`), then `speakerRenamed`."""
        name = self.segments.speakers[speaker]
        self._ask_name(
            self.tr("Rename speaker"),
            self.tr("New name for {0} (every segment of this file):").format(name),
            name,
            lambda text: self.speakerRenamed.emit(self.job.id, speaker, text) if self.job else None,
        )

    def ask_remember(self, speaker: int) -> None:
        """Ask what name to remember a speaker's voice by, then `voiceRemembered`."""
        name = self.segments.speakers[speaker]
        self._ask_name(
            self.tr("Remember this voice"),
            self.tr("Name later files give this voice:"),
            name,
            lambda text: self.voiceRemembered.emit(self.job.id, speaker, text) if self.job else None,
        )

    def _ask_name(self, title: str, label: str, text: str, then: Callable[[str], object]) -> None:
        dialog = QInputDialog(self)
        dialog.setWindowTitle(title)
        dialog.setLabelText(label)
        dialog.setTextValue(text)
        dialog.textValueSelected.connect(lambda value: then(value) if value.strip() else None)
        dialog.finished.connect(dialog.deleteLater)
        self.name_dialog = dialog
        dialog.open()

    def _play_row(self, index: QModelIndex) -> None:
        if self.job is None or not index.isValid():
            return
        seg = self.segments.segments[index.row()]
        self.segments.set_playing(index.row())
        self.player.play(self.job.path, seg.start, seg.end)
        self.play_hint.setText(f"▶ {clock(seg.start, tenths=True)} – {clock(seg.end, tenths=True)}")

    def stop_playback(self) -> None:
        self.player.stop()
        self.segments.set_playing(-1)

    def _on_playing(self, playing: bool) -> None:
        self.stop_button.setVisible(playing)
        self.play_hint.setVisible(playing)
        if not playing:
            self.segments.set_playing(-1)
