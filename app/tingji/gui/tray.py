"""The system tray icon: Show / Quit, what is going on, a note when a queue finishes unseen.

Only created where the platform has a tray (`isSystemTrayAvailable`). Where
there is one, closing the window hides it, so that dictation's global hotkey
keeps working; Quit in this menu ends the app. While dictation records, the
icon gets a red dot, and an amber one while the take is transcribed (it
mirrors the dictation overlay, and stands in for it where none can float):
the window may be hidden, and a live microphone must never go unnoticed.
The first time closing hides the window, the tray says that Tingji keeps
running.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter
from PySide6.QtWidgets import QMenu, QMessageBox, QSystemTrayIcon, QWidget

from ..dictation.states import DictationState

# The dot on the icon while dictation is live: red while a microphone records, amber while a take is transcribed.
_DOTS = {DictationState.LISTENING: "#d93025", DictationState.TRANSCRIBING: "#f29900"}


class Tray(QObject):
    showRequested = Signal()
    quitRequested = Signal()

    def __init__(self, icon: QIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.base_icon = icon
        self.recording = False
        self.dictation = DictationState.IDLE  # the state the icon's dot shows (IDLE: no dot)
        self.icon = QSystemTrayIcon(icon, self)
        # Parented to the window when there is one: a parentless menu outlives the
        # QApplication at exit and crashes the interpreter's shutdown.
        self.menu = QMenu(parent if isinstance(parent, QWidget) else None)
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

    def show_activity(self, running: str | None, dictation: DictationState) -> None:
        """The tooltip names the file being transcribed (`running`) and what dictation does (its host's
        state); the red dot shows while it listens."""
        parts = [self.tr("transcribing {0}").format(running)] if running else []
        if dictation is DictationState.LISTENING:
            parts.append(self.tr("dictation: listening"))
        elif dictation is DictationState.TRANSCRIBING:
            parts.append(self.tr("dictation: transcribing"))
        self.set_status(" · ".join(parts))
        self.set_dictation(dictation)

    def say_queue_finished(self, done: int, failed: int) -> None:
        """A note, unless the user is looking at the window (the tray's parent)."""
        window = self.parent()
        if isinstance(window, QWidget) and window.isActiveWindow():
            return
        text = self.tr("Queue finished. Done: {0} · Failed: {1}").format(done, failed)
        self.notify(self.tr("Tingji"), text)

    def say_still_running(self) -> QMessageBox | None:
        """Closing hid the window: say that the app goes on, as a balloon, or where the desktop shows none
        as a small window (not modal), which is returned: the caller closes it when the app ends."""
        title = self.tr("Tingji is still running")
        text = self.tr(
            "Dictation and the queue keep working in the background. "
            "Click the tray icon to open the window; choose Quit in its menu to exit."
        )
        if self.supports_messages() and Tray.available():
            self.notify(title, text)
            return None
        notice = QMessageBox(QMessageBox.Icon.Information, title, text)
        notice.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        notice.show()
        return notice

    def supports_messages(self) -> bool:
        return self.icon.supportsMessages()

    def set_dictation(self, state: DictationState) -> None:
        """The dot for dictation's `state`: red while listening, amber while transcribing, none otherwise."""
        state = state if state in _DOTS else DictationState.IDLE
        if state is self.dictation:
            return
        self.dictation, self.recording = state, state is DictationState.LISTENING
        if state not in _DOTS:
            self.icon.setIcon(self.base_icon)
            return
        pixmap = self.base_icon.pixmap(64, 64)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QColor("white"))
        painter.setBrush(QColor(_DOTS[state]))
        painter.drawEllipse(QPointF(48, 48), 14, 14)
        painter.end()
        self.icon.setIcon(QIcon(pixmap))

    def notify(self, title: str, message: str) -> None:
        if self.icon.supportsMessages():
            self.icon.showMessage(title, message, QSystemTrayIcon.MessageIcon.Information, 5000)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.showRequested.emit()

    def hide(self) -> None:
        self.icon.hide()
