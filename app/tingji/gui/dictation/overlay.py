"""The dictation overlay: a small floating window that shows what dictation does while the app is hidden.

People dictate into other applications, so the overlay must never get in their
way: it takes no focus (`WindowDoesNotAcceptFocus`, shown without activating),
lets every click through to the window below (`WindowTransparentForInput`: an
empty X input shape; `WA_TransparentForMouseEvents` inside Qt), has no taskbar
entry (a tool window) and stays on top. It sits near the bottom (or top) centre
of the screen that holds the mouse cursor.

States, driven by the controller's events (`on_event`, GUI thread):
  listening     a level meter from the take's RMS (polled, ~30 Hz) and the live preview text,
                newest words visible (the start is elided)
  transcribing  the last preview greyed
  final         the inserted text, for a moment
  error         the problem in one line, a little longer
  hidden

A "begin" event shows it before the microphone opens (which can take 100+ ms), so
it appears as the hotkey is pressed. Where a window cannot float over others
(Wayland), `overlay_supported()` is False: the host does not show it and the
tray icon alone says what dictation does.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QCursor, QFont, QFontMetrics, QGuiApplication, QPainter, QPainterPath, QRegion
from PySide6.QtWidgets import QWidget

from ...dictation.events import DictationEvent
from .. import theme
from ..errors import localized

__all__ = ["DictationOverlay", "overlay_supported"]

WIDTH, HEIGHT = 440, 64
MARGIN = 56  # from the screen's edge (clear of a taskbar at the bottom)
FINAL_MS = 1600  # how long the inserted text stays
ERROR_MS = 3500
LEVEL_MS = 33
BARS = 7


def overlay_supported() -> bool:
    """Whether this desktop lets an application float a window over others (Wayland does not)."""
    return not QGuiApplication.platformName().startswith("wayland")


class DictationOverlay(QWidget):
    """The floating indicator; `on_event` takes the controller's events (see the module docstring)."""

    stateShown = Signal(str, str)  # state, text: each change (tests and screenshots follow it)

    def __init__(self, level: Callable[[], float] | None = None, position: str = "bottom") -> None:
        """Args:
        level: the take's current RMS (0..1), polled while listening.
        position: "bottom", "top" or "off" (never shown).
        """
        super().__init__(
            None,
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint
            | Qt.WindowType.WindowDoesNotAcceptFocus
            | Qt.WindowType.WindowTransparentForInput,
        )
        self.setObjectName("dictationOverlay")
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFixedSize(WIDTH, HEIGHT)
        path = QPainterPath()
        path.addRoundedRect(QRectF(0, 0, WIDTH, HEIGHT), 14, 14)
        self.setMask(QRegion(path.toFillPolygon().toPolygon()))  # rounded without a compositor too
        self.level_source = level
        self.position = position
        self.state = "hidden"
        self.text = ""  # the preview, the final text or the error line
        self.level = 0.0  # shown level, smoothed
        self._level_timer = QTimer(self)
        self._level_timer.setInterval(LEVEL_MS)
        self._level_timer.timeout.connect(self._poll_level)
        self._hide_timer = QTimer(self)
        self._hide_timer.setSingleShot(True)
        self._hide_timer.timeout.connect(lambda: self._set("hidden"))

    # -- events -----------------------------------------------------------------------------

    @Slot(object)
    def on_event(self, event: DictationEvent) -> None:
        kind = event.kind
        if kind == "begin" or (kind == "state" and event.state == "listening" and self.state != "listening"):
            self._set("listening", "")
        elif kind == "preview" and self.state == "listening":
            self._set("listening", event.text)
        elif kind == "state" and event.state == "transcribing" and self.state == "listening":
            self._set("transcribing", self.text)
        elif kind == "state" and event.state == "idle" and self.state in ("listening", "transcribing"):
            self._set("hidden")
        elif kind == "take" and event.take is not None:
            take = event.take
            if take.output == "failed":
                self._set("error", self.tr("Not inserted; the text is in the dictation history."), ERROR_MS)
            else:
                self._set("final", take.text, FINAL_MS)
        elif kind == "empty":
            self._set("final", self.tr("Nothing was said."), FINAL_MS)
        elif kind == "error":
            self._set("error", localized(event.error) if event.error is not None else event.message, ERROR_MS)

    def set_position(self, position: str) -> None:
        self.position = position
        if position == "off":
            self._set("hidden")
        elif self.isVisible():
            self._place()

    # -- showing ------------------------------------------------------------------------------

    def _set(self, state: str, text: str = "", hide_after_ms: int = 0) -> None:
        self._hide_timer.stop()
        self.state, self.text = state, text
        if state == "listening":
            if not self._level_timer.isActive():
                self.level = 0.0
                self._level_timer.start()
        else:
            self._level_timer.stop()
        if state == "hidden" or self.position == "off":
            self.hide()
        else:
            if not self.isVisible():
                self._place()
                self.show()  # without activating: the focused window keeps its focus
            self.raise_()
            self.update()
        if hide_after_ms:
            self._hide_timer.start(hide_after_ms)
        self.stateShown.emit(state, text)

    def _place(self) -> None:
        screen = QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry()
        x = area.x() + (area.width() - WIDTH) // 2
        y = area.y() + MARGIN if self.position == "top" else area.y() + area.height() - HEIGHT - MARGIN
        self.move(x, y)

    def _poll_level(self) -> None:
        rms = self.level_source() if self.level_source is not None else 0.0
        # Speech sits between about -50 and -10 dBFS: that range fills the meter.
        target = min(1.0, max(0.0, (20 * math.log10(max(rms, 1e-6)) + 50) / 40))
        # Fast up, slower down, as meters do.
        self.level = target if target > self.level else self.level * 0.8 + target * 0.2
        self.update()

    # -- painting -------------------------------------------------------------------------------

    def paintEvent(self, event: object) -> None:  # noqa: N802 - Qt override
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        background, border, fg = QColor(32, 33, 36), QColor(70, 72, 78), QColor(240, 240, 240)
        p.setPen(border)
        p.setBrush(background)
        p.drawRoundedRect(QRectF(0.5, 0.5, WIDTH - 1, HEIGHT - 1), 14, 14)
        dot = {"listening": "listening", "transcribing": "transcribing", "final": "idle", "error": "unavailable"}
        color = theme.dictation_color(dot.get(self.state, "idle"))
        left = 16
        if self.state == "listening":
            self._paint_meter(p, color, left)
        else:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(color)
            p.drawEllipse(QRectF(left + 12, HEIGHT / 2 - 7, 14, 14))
        text_x = left + 58
        width = WIDTH - text_x - 16
        title = {
            "listening": self.tr("Listening…"),
            "transcribing": self.tr("Transcribing…"),
            "final": "",
            "error": "",
        }.get(self.state, "")
        font = QFont(self.font())
        small = QFont(font)
        small.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        if title and self.text:
            p.setFont(small)
            p.setPen(QColor(170, 170, 175))
            p.drawText(QRectF(text_x, 8, width, 18), Qt.AlignmentFlag.AlignVCenter, title)
            self._paint_text(p, font, fg if self.state == "listening" else QColor(185, 185, 190), text_x, 28, width)
        else:
            color = QColor(255, 180, 170) if self.state == "error" else fg
            self._paint_text(p, font, color, text_x, 0, width, title or self.text, HEIGHT)
        p.end()

    def _paint_meter(self, p: QPainter, color: QColor, left: int) -> None:
        p.setPen(Qt.PenStyle.NoPen)
        bar_w, gap, full = 4, 3, HEIGHT - 28
        centre = HEIGHT / 2
        for i in range(BARS):
            # The middle bars rise highest, so a level reads as a little waveform.
            shape = 1.0 - abs(i - (BARS - 1) / 2) / BARS
            h = max(4.0, full * self.level * shape)
            p.setBrush(color if self.level > 0.02 else QColor(120, 120, 125))
            p.drawRoundedRect(QRectF(left + i * (bar_w + gap), centre - h / 2, bar_w, h), 2, 2)

    def _paint_text(
        self,
        p: QPainter,
        font: QFont,
        color: QColor,
        x: int,
        y: int,
        width: int,
        text: str | None = None,
        height: int = 28,
    ) -> None:
        text = self.text if text is None else text
        p.setFont(font)
        p.setPen(color)
        # The newest words are what the speaker looks for: elide the start, not the end.
        shown = QFontMetrics(font).elidedText(" ".join(text.split()), Qt.TextElideMode.ElideLeft, width)
        p.drawText(QRectF(x, y, width, height), Qt.AlignmentFlag.AlignVCenter, shown)
