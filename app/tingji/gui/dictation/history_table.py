"""The dictation page's history table: a row per take, newest first, with its time, its text and the
buttons the page gives it (Play, Copy, Delete). The page keeps the words and the actions; this module
only lays the rows out."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QWidget,
)

from ...dictation.history import DictationTake
from .. import icons
from ..errors import localized_stored

__all__ = ["RowAction", "fill_history", "history_table", "row_buttons"]

#: A row's button: object name, text (also its tooltip), glyph, slot, enabled.
RowAction = tuple[str, str, str, Callable[..., None], bool]


def history_table(parent: QWidget) -> QTableWidget:
    """An empty table of three columns: time, text (stretched), the row's buttons."""
    table = QTableWidget(0, 3, parent)
    table.setObjectName("dictationHistory")
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setWordWrap(False)
    table.verticalHeader().hide()
    header = table.horizontalHeader()
    header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
    header.setHighlightSections(False)
    return table


def fill_history(
    table: QTableWidget, takes: Sequence[DictationTake], buttons: Callable[[DictationTake], QWidget]
) -> None:
    """Replace the rows with `takes`; `buttons` makes the widget of a take's third cell.

    Today's takes show the time of day, older ones the date too; the full time and a failed take's
    problem are in the tooltips.
    """
    table.setRowCount(len(takes))
    today = time.strftime("%Y-%m-%d")
    for row, take in enumerate(takes):
        day = time.strftime("%Y-%m-%d", time.localtime(take.created))
        stamp = time.strftime("%H:%M:%S" if day == today else "%Y-%m-%d %H:%M", time.localtime(take.created))
        when = QTableWidgetItem(stamp)
        when.setToolTip(time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(take.created)))
        text = QTableWidgetItem(take.text)
        problem = localized_stored(take.error, take.error_code) if take.error else ""
        text.setToolTip(f"{take.text}\n\n{problem}" if problem else take.text)
        for item in (when, text):
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
        table.setItem(row, 0, when)
        table.setItem(row, 1, text)
        table.setCellWidget(row, 2, buttons(take))
    table.resizeColumnToContents(0)
    table.resizeColumnToContents(2)


def row_buttons(parent: QWidget, actions: Sequence[RowAction], palette: QPalette) -> QWidget:
    """A row of flat tool buttons, icon beside text, one per action."""
    box = QWidget(parent)
    row = QHBoxLayout(box)
    row.setContentsMargins(2, 0, 2, 0)
    row.setSpacing(2)
    for name, text, glyph, slot, enabled in actions:
        b = QToolButton(box)
        b.setObjectName(name)
        b.setText(text)
        b.setToolTip(text)
        b.setIcon(icons.glyph(glyph, palette))
        b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        b.setAutoRaise(True)
        b.clicked.connect(slot)
        b.setEnabled(enabled)
        row.addWidget(b)
    return box
