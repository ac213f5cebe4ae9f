"""A coloured notice strip under the toolbar ("no model installed", "model failed").

Its colours come from `theme.banner_colors` at the moment it is shown or the
palette changes, so it reads well in light and dark mode alike.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from . import theme


class NoticeBanner(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noticeBanner")
        self.kind = "info"
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.label.setOpenExternalLinks(False)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(14, 10, 10, 10)
        self._layout.setSpacing(8)
        self._layout.addWidget(self.label, 1)
        self.buttons: list[QPushButton] = []
        self.hide()

    def show_notice(self, kind: str, html: str, actions: list[tuple[str, Callable[[], None]]] = ()) -> None:
        """Show `html` with buttons; `kind` is "info" or "error"."""
        self.kind = kind
        self.label.setText(html)
        for b in self.buttons:
            b.deleteLater()
        self.buttons = []
        for text, slot in actions:
            b = QPushButton(text)
            b.clicked.connect(slot)
            self._layout.addWidget(b, 0, Qt.AlignmentFlag.AlignVCenter)
            self.buttons.append(b)
        self.restyle()
        self.show()

    def restyle(self) -> None:
        bg, border, fg = theme.banner_colors(self.kind, self.palette())
        self.setStyleSheet(
            f"#noticeBanner {{ background: {bg.name()}; border: 1px solid {border.name()}; border-radius: 6px; }}"
            f"#noticeBanner QLabel {{ color: {fg.name()}; background: transparent; }}"
        )
