"""The dictation overlay: a small floating window that shows what dictation does while the app is hidden.

People dictate into other applications, so the overlay must never get in their
way: it takes no focus (`WindowDoesNotAcceptFocus`, shown without activating),
lets every click through to the window below (`WindowTransparentForInput`: an
empty X input shape; `WA_TransparentForMouseEvents` inside Qt), has no taskbar
entry (a tool window) and stays on top. It sits near the bottom (or top) centre
of the screen that holds the mouse cursor.

What it shows (`phase`), driven by the controller's events (`on_event`, GUI thread):
  LIVE      the take, as `dictation` (a DictationState) says:
              LISTENING     a level meter from the take's RMS (polled, ~30 Hz) and the live preview
                            text, newest words visible (the start is elided)
              TRANSCRIBING  the last preview greyed
  FINAL     the inserted text, for a moment
  ERROR     the problem in one line, a little longer
  HIDDEN

A TakeBegun event shows it before the microphone opens (which can take 100+ ms), so
it appears as the hotkey is pressed. Where a window cannot float over others
(Wayland), `overlay_supported()` is False: the host does not show it and the
tray icon alone says what dictation does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import Enum

from PySide6.QtCore import QRectF, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QCursor, QFont, QFontMetrics, QGuiApplication, QPainter, QPainterPath, QRegion
from PySide6.QtWidgets import QWidget

from ...dictation.events import DictationEvent, NothingSaid, PreviewText, Problem, StateChanged, TakeBegun, TakeStored
from ...dictation.states import DictationState
from .. import theme
from ..errors import localized

__all__ = ["DictationOverlay", "OverlayPhase", "overlay_supported"]

LISTENING, TRANSCRIBING = DictationState.LISTENING, DictationState.TRANSCRIBING

WIDTH, HEIGHT = 440, 64
MARGIN = 56  # from the screen's edge (clear of a taskbar at the bottom)
FINAL_MS = 1600  # how long the inserted text stays
ERROR_MS = 3500
LEVEL_MS = 33
BARS = 7


def overlay_supported() -> bool:
    """Whether this desktop lets an application float a window over others (Wayland does not)."""
    return not QGuiApplication.platformName().startswith("wayland")


class OverlayPhase(Enum):
    """What the overlay shows: the take (LIVE: its DictationState), its outcome, or nothing."""

    HIDDEN = "hidden"
    LIVE = "live"
    FINAL = "final"
    ERROR = "error"


class DictationOverlay(QWidget):
    """The floating indicator; `on_event` takes the controller's events (see the module docstring)."""

    stateShown = Signal(object, object, str)  # OverlayPhase, DictationState, text: each change (tests follow it)

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
        self.phase = OverlayPhase.HIDDEN
        self.dictation = DictationState.IDLE  # the take's state while LIVE
        self.text = ""  # the preview, the final text or the error line
        self.level = 0.0  # shown level, smoothed
        self._level_timer = QTimer(self)
        self._level_timer.setInterval(LEVEL_MS)
        self._level_timer.timeout.connect(self._poll_level)
        self._hide_timer = QTimer(self)
        self._hide_timer.setSingleShot(True)
        self._hide_timer.timeout.connect(lambda: self._set(OverlayPhase.HIDDEN))

    def showing(self, state: DictationState) -> bool:
        """Whether it shows a take in `state` now."""
        return self.phase is OverlayPhase.LIVE and self.dictation is state

    # -- events -----------------------------------------------------------------------------

    @Slot(object)
    def on_event(self, event: DictationEvent) -> None:
        live = self.phase is OverlayPhase.LIVE
        match event:
            case TakeBegun():
                self._live(LISTENING, "")
            case StateChanged(state=DictationState.LISTENING) if not self.showing(LISTENING):
                self._live(LISTENING, "")
            case PreviewText(text=text) if self.showing(LISTENING):
                self._live(LISTENING, text)
            case StateChanged(state=DictationState.TRANSCRIBING) if self.showing(LISTENING):
                self._live(TRANSCRIBING, self.text)
            case StateChanged(state=DictationState.IDLE | DictationState.OFF) if live:
                self._set(OverlayPhase.HIDDEN)
            case TakeStored(take=take) if take.output == "failed":
                self._set(OverlayPhase.ERROR, self.tr("Not inserted; the text is in the dictation history."), ERROR_MS)
            case TakeStored(take=take):
                self._set(OverlayPhase.FINAL, take.text, FINAL_MS)
            case NothingSaid():
                self._set(OverlayPhase.FINAL, self.tr("Nothing was said."), FINAL_MS)
            case Problem(error=error):
                self._set(OverlayPhase.ERROR, localized(error), ERROR_MS)

    def set_position(self, position: str) -> None:
        self.position = position
        if position == "off":
            self._set(OverlayPhase.HIDDEN)
        elif self.isVisible():
            self._place()

    # -- showing ------------------------------------------------------------------------------

    def _live(self, state: DictationState, text: str) -> None:
        self.dictation = state
        self._set(OverlayPhase.LIVE, text)

    def _set(self, phase: OverlayPhase, text: str = "", hide_after_ms: int = 0) -> None:
        self._hide_timer.stop()
        self.phase, self.text = phase, text
        if self.showing(LISTENING):
            if not self._level_timer.isActive():
                self.level = 0.0
                self._level_timer.start()
        else:
            self._level_timer.stop()
        if phase is OverlayPhase.HIDDEN or self.position == "off":
            self.hide()
        else:
            if not self.isVisible():
                self._place()
                self.show()  # without activating: the focused window keeps its focus
            self.raise_()
            self.update()
        if hide_after_ms:
            self._hide_timer.start(hide_after_ms)
        self.stateShown.emit(phase, self.dictation, text)

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
        phase, listening = self.phase, self.showing(LISTENING)
        live = phase is OverlayPhase.LIVE
        color = theme.dictation_color(
            self.dictation if live else DictationState.IDLE, problem=phase is OverlayPhase.ERROR
        )
        left = 16
        if listening:
            self._paint_meter(p, color, left)
        else:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(color)
            p.drawEllipse(QRectF(left + 12, HEIGHT / 2 - 7, 14, 14))
        text_x = left + 58
        width = WIDTH - text_x - 16
        titles = {LISTENING: self.tr("Listening…"), TRANSCRIBING: self.tr("Transcribing…")}
        title = titles.get(self.dictation, "") if live else ""
        font = QFont(self.font())
        small = QFont(font)
        small.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        if title and self.text:
            p.setFont(small)
            p.setPen(QColor(170, 170, 175))
            p.drawText(QRectF(text_x, 8, width, 18), Qt.AlignmentFlag.AlignVCenter, title)
            self._paint_text(p, font, fg if listening else QColor(185, 185, 190), text_x, 28, width)
        else:
            color = QColor(255, 180, 170) if phase is OverlayPhase.ERROR else fg
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
