"""Play one segment of a source file: seek to its start, stop at its end.

Why a small class: QMediaPlayer loads sources asynchronously, so a seek issued
right after `setSource` is lost on some backends. We remember the wanted range,
seek and start once the media is loaded, and watch `positionChanged` to stop at the end
(positions arrive every ~50 ms, which is precise enough for sentence playback).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer


class SegmentPlayer(QObject):
    playingChanged = Signal(bool)
    error = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.player = QMediaPlayer(self)
        self.output = QAudioOutput(self)
        self.player.setAudioOutput(self.output)
        self._source: str | None = None
        self._range: tuple[int, int] | None = None  # milliseconds
        self._pending_seek = False
        self.player.mediaStatusChanged.connect(self._on_status)
        self.player.positionChanged.connect(self._on_position)
        self.player.playbackStateChanged.connect(
            lambda s: self.playingChanged.emit(s == QMediaPlayer.PlaybackState.PlayingState)
        )
        self.player.errorOccurred.connect(lambda _e, text: self.error.emit(text))

    @property
    def range_ms(self) -> tuple[int, int] | None:
        return self._range

    def is_playing(self) -> bool:
        return self.player.playbackState() == QMediaPlayer.PlaybackState.PlayingState

    def play(self, path: str, start_s: float, end_s: float) -> None:
        """Play [start_s, end_s) of `path`; replaces whatever was playing."""
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
        self.player.stop()

    def _on_status(self, status: QMediaPlayer.MediaStatus) -> None:
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
