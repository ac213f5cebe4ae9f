"""The system tray icon: Show / Quit, and a note when a queue finishes unseen.

Only created where the platform has a tray (`isSystemTrayAvailable`); closing
the window still quits the app, because a transcription queue survives a
restart anyway and a hidden app surprises people.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon


class Tray(QObject):
    showRequested = Signal()
    quitRequested = Signal()

    def __init__(self, icon: QIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.icon = QSystemTrayIcon(icon, self)
        self.menu = QMenu()
        self.show_action = self.menu.addAction("")
        self.show_action.triggered.connect(self.showRequested)
        self.menu.addSeparator()
        self.quit_action = self.menu.addAction("")
        self.quit_action.triggered.connect(self.quitRequested)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self.retranslate()
        self.icon.show()

    @staticmethod
    def available() -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    def retranslate(self) -> None:
        self.show_action.setText(self.tr("Show Tingji"))
        self.quit_action.setText(self.tr("Quit"))
        self.icon.setToolTip(self.tr("Tingji"))

    def set_status(self, text: str) -> None:
        self.icon.setToolTip(f"{self.tr('Tingji')} — {text}" if text else self.tr("Tingji"))

    def notify(self, title: str, message: str) -> None:
        if self.icon.supportsMessages():
            self.icon.showMessage(title, message, QSystemTrayIcon.MessageIcon.Information, 5000)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.showRequested.emit()

    def hide(self) -> None:
        self.icon.hide()
