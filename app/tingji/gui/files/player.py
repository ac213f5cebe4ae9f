"""Play one segment of a source file: seek to its start, stop at its end.

Why a small class: QMediaPlayer loads sources asynchronously, so a seek issued
right after `setSource` is lost on some backends. We remember the wanted range,
seek and start once the media is loaded, and watch `positionChanged` to stop at the end
(positions arrive every ~50 ms, which is precise enough for sentence playback).

Qt Multimedia is imported at the first play, not with the window: its library links
PulseAudio's client, and a machine without libpulse0 could not start the app just because
segments could not be played. Without it (or without a backend plugin) `play` emits `error`
with the one line naming the library and its package (`tingji.system_libraries`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QLibraryInfo, QObject, QUrl, Signal

from ...errors import TingjiError
from ...system_libraries import missing_from, probe
from .. import messages
from ..errors import localized

log = logging.getLogger(__name__)


class SegmentPlayer(QObject):
    playingChanged = Signal(bool)
    error = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.player: Any = None  # a QMediaPlayer once the first play loaded Qt Multimedia
        self.problem: TingjiError | None = None  # why it cannot play here (asked again at each play)
        self._source: str | None = None
        self._range: tuple[int, int] | None = None  # milliseconds
        self._pending_seek = False

    def _ensure_player(self) -> bool:
        """Make the QMediaPlayer at the first play; False (and `problem` set) when Qt Multimedia cannot."""
        if self.player is not None:
            return True
        try:
            from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer
        except ImportError as exc:  # its library or one it links (libpulse.so.0) does not load
            self.problem = _unavailable(exc)
            return False
        player = QMediaPlayer(self)
        if not player.isAvailable():  # Qt found no backend plugin it could load
            player.deleteLater()
            self.problem = _no_backend()
            return False
        self.problem = None
        self.player, self.output = player, QAudioOutput(self)
        player.setAudioOutput(self.output)
        player.mediaStatusChanged.connect(self._on_status)
        player.positionChanged.connect(self._on_position)
        playing = QMediaPlayer.PlaybackState.PlayingState
        player.playbackStateChanged.connect(lambda s: self.playingChanged.emit(s == playing))
        player.errorOccurred.connect(lambda _e, text: self.error.emit(text))
        return True

    @property
    def range_ms(self) -> tuple[int, int] | None:
        return self._range

    def is_playing(self) -> bool:
        return self.player is not None and self.player.isPlaying()

    def play(self, path: str, start_s: float, end_s: float) -> None:
        """Play [start_s, end_s) of `path`; replaces whatever was playing.

        Args:
            path: the media file.
            start_s: where the segment starts, in seconds.
            end_s: where it ends.
        """
        if not self._ensure_player():
            assert self.problem is not None
            log.info("cannot play: %s", self.problem)
            self.error.emit(localized(self.problem))
            return
        start, end = int(max(0.0, start_s) * 1000), int(max(start_s, end_s) * 1000)
        self._range = (start, max(end, start + 200))
        if self._source != path:
            self._source = path
            self._pending_seek = True
            self.player.setSource(QUrl.fromLocalFile(str(Path(path))))
            self._on_status(self.player.mediaStatus())  # a backend may have loaded it synchronously
        else:
            self.player.setPosition(start)
            self.player.play()

    def stop(self) -> None:
        self._range = None
        if self.player is not None:
            self.player.stop()

    def _on_status(self, status: Any) -> None:
        from PySide6.QtMultimedia import QMediaPlayer  # loaded already: a player exists

        loaded = (
            QMediaPlayer.MediaStatus.LoadedMedia,
            QMediaPlayer.MediaStatus.BufferedMedia,
            QMediaPlayer.MediaStatus.BufferingMedia,
        )
        if self._pending_seek and status in loaded and self._range is not None:
            self._pending_seek = False
            self.player.setPosition(self._range[0])
            self.player.play()
        elif status == QMediaPlayer.MediaStatus.InvalidMedia:
            self._pending_seek = False
            self._source = None

    def _on_position(self, position: int) -> None:
        if self._range is None or self._pending_seek:
            return
        if position >= self._range[1]:
            self._range = None
            self.player.pause()  # pause keeps the media loaded for the next click


def _unavailable(exc: ImportError) -> TingjiError:
    lib = missing_from(exc)
    if lib is None or not lib.package:
        return TingjiError(messages.PLAYBACK_UNAVAILABLE, reason=" ".join(str(exc).split()))
    return TingjiError(messages.PLAYBACK_LIBRARY_MISSING, library=lib.soname, package=lib.package)


def _no_backend() -> TingjiError:
    """Why Qt Multimedia has no backend: the library its FFmpeg plugin lacks, when that is it."""
    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "multimedia"
    found = sorted(plugins.glob("*.so")) if plugins.is_dir() else []
    for plugin in found:
        failed = probe(plugin)
        if failed is not None:
            lib, text = failed
            if lib is not None and lib.package:
                return TingjiError(messages.PLAYBACK_LIBRARY_MISSING, library=lib.soname, package=lib.package)
            return TingjiError(messages.PLAYBACK_UNAVAILABLE, reason=text)
    return TingjiError(messages.PLAYBACK_UNAVAILABLE, reason=f"no backend plugin loads from {plugins}")
