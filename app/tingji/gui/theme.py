"""Light and dark appearance, and the few custom colours the app uses.

Qt 6 follows the system colour scheme on Windows 11 and macOS by itself, but
not everywhere (plain X11, the Fusion style on some desktops), so when the
system says "dark" and the palette we got is still light, we install our own
dark Fusion palette. Every custom colour (status text, the engine dot, the
banner) is picked from `is_dark()` at paint time, never cached, so a switch
while the app runs repaints correctly.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from ..dictation.states import DictationState

_light_palette: QPalette | None = None


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def is_dark(palette: QPalette | None = None) -> bool:
    """Judge by the palette actually in use (what the user sees), not by a setting."""
    palette = palette or QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def dark_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor("#202124"), QColor("#17181a"), QColor("#e8eaed")
    button, mid = QColor("#2b2c2f"), QColor("#3c4043")
    accent = QColor("#5b9dff")
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        p.setColor(group, QPalette.ColorRole.Window, window)
        p.setColor(group, QPalette.ColorRole.WindowText, text)
        p.setColor(group, QPalette.ColorRole.Base, base)
        p.setColor(group, QPalette.ColorRole.AlternateBase, QColor("#1e1f22"))
        p.setColor(group, QPalette.ColorRole.ToolTipBase, button)
        p.setColor(group, QPalette.ColorRole.ToolTipText, text)
        p.setColor(group, QPalette.ColorRole.PlaceholderText, QColor("#9aa0a6"))
        p.setColor(group, QPalette.ColorRole.Text, text)
        p.setColor(group, QPalette.ColorRole.Button, button)
        p.setColor(group, QPalette.ColorRole.ButtonText, text)
        p.setColor(group, QPalette.ColorRole.BrightText, QColor("#ffffff"))
        p.setColor(group, QPalette.ColorRole.Light, QColor("#4a4d52"))
        p.setColor(group, QPalette.ColorRole.Midlight, mid)
        p.setColor(group, QPalette.ColorRole.Mid, QColor("#34363a"))
        p.setColor(group, QPalette.ColorRole.Dark, QColor("#111214"))
        p.setColor(group, QPalette.ColorRole.Shadow, QColor("#000000"))
        p.setColor(group, QPalette.ColorRole.Highlight, QColor("#2f5fa8"))
        p.setColor(group, QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
        p.setColor(group, QPalette.ColorRole.Link, accent)
        p.setColor(group, QPalette.ColorRole.LinkVisited, QColor("#b28cff"))
        p.setColor(group, QPalette.ColorRole.Accent, accent)
    disabled = QColor("#6f7378")
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Window, window)
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Base, base)
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Button, button)
    return p


def apply_appearance(app: QApplication, appearance: str) -> None:
    """ "system", "light" or "dark": ask Qt for the scheme, then make sure the palette matches."""
    global _light_palette
    if _light_palette is None:
        _light_palette = QPalette(app.palette())
    hints = app.styleHints()
    wanted = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}.get(appearance, Qt.ColorScheme.Unknown)
    try:
        hints.setColorScheme(wanted)  # Qt >= 6.8; Unknown = follow the system again
    except AttributeError:  # pragma: no cover - older Qt
        pass
    dark = appearance == "dark" or (appearance == "system" and system_is_dark())
    if dark and not is_dark(app.palette()):
        app.setStyle("Fusion")  # native styles may ignore a custom palette; Fusion honours it
        app.setPalette(dark_palette())
    elif not dark and is_dark(app.palette()):
        app.setPalette(_light_palette if not is_dark(_light_palette) else app.style().standardPalette())


def follow(event: QEvent, retranslate: Callable[[], None], restyle: Callable[[], None]) -> None:
    """For a widget's changeEvent: its texts again on a language switch, its icons and colours on a
    palette switch (the appearance setting, or the system's light/dark scheme)."""
    if event.type() == QEvent.Type.LanguageChange:
        retranslate()
    elif event.type() == QEvent.Type.PaletteChange:
        restyle()


# -- custom colours (readable on both backgrounds) -----------------------------


def secondary_text(palette: QPalette | None = None) -> QColor:
    """Quieter than body text but clearly readable (the Disabled colour is too faint for content)."""
    palette = palette or QGuiApplication.palette()
    fg, bg = palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base)
    t = 0.6
    return QColor(
        round(fg.red() * t + bg.red() * (1 - t)),
        round(fg.green() * t + bg.green() * (1 - t)),
        round(fg.blue() * t + bg.blue() * (1 - t)),
    )


# The app colours a state by what it means, not by whose state it is: a file's status (files/queue_model.py),
# the engine's dot, dictation's state.
_TONES = {
    #             light        dark
    "quiet": ("#5f6368", "#9aa0a6"),  # waiting, nothing to say
    "busy": ("#1a66d2", "#7fb0ff"),  # working on it
    "good": ("#1e7e34", "#6dd58c"),  # done, ready
    "bad": ("#c5221f", "#ff8a80"),  # failed
    "caution": ("#9a6700", "#f2c04c"),  # cancelled, missing, worth a look
}


def tone_color(tone: str, palette: QPalette | None = None) -> QColor:
    """The colour of a tone ("quiet", "busy", "good", "bad", "caution") on the palette in use."""
    light, dark = _TONES[tone]
    return QColor(dark if is_dark(palette) else light)


def warning_color(palette: QPalette | None = None) -> QColor:
    """Done with warnings (part of a file could not be read): amber, between done and failed."""
    return tone_color("caution", palette)


def engine_color(state: str, palette: QPalette | None = None) -> QColor:
    """The dot next to the engine status: loading / ready / failed / none / unloaded (grey, like waiting)."""
    table = {"loading": "busy", "ready": "good", "failed": "bad", "none": "caution"}
    return tone_color(table.get(state, "quiet"), palette)


_DICTATION_TONES = {DictationState.TRANSCRIBING: "busy", DictationState.IDLE: "good", DictationState.OFF: "quiet"}


def dictation_color(state: DictationState, palette: QPalette | None = None, *, problem: bool = False) -> QColor:
    """The dot of the dictation status: listening is red (a microphone is recording); `problem` (the hotkey
    does not work, an error shown) is amber, unless it listens."""
    if state is DictationState.LISTENING:
        return QColor("#ff6b6b" if is_dark(palette) else "#d93025")
    return tone_color("caution" if problem else _DICTATION_TONES[state], palette)


def banner_colors(kind: str, palette: QPalette | None = None) -> tuple[QColor, QColor, QColor]:
    """Background, border and text colours for the notice banner ("info" or "error")."""
    dark = is_dark(palette)
    if kind == "error":
        return (
            (QColor("#3b1f1e"), QColor("#7a2e2a"), QColor("#ffd7d2"))
            if dark
            else (QColor("#fdecea"), QColor("#f3b8b2"), QColor("#5f1410"))
        )
    return (
        (QColor("#1d2a3d"), QColor("#34527d"), QColor("#d6e6ff"))
        if dark
        else (QColor("#e8f0fe"), QColor("#aecbfa"), QColor("#0b3168"))
    )
