"""The status-bar item shown while a dropped folder is being walked.

A folder of a hundred thousand files, or one on a slow network share, takes
seconds to walk (files.workers.ScanWorker does it off the GUI thread). Without a
sign of life the drop would look ignored, so after a short delay this shows
a busy bar, how many media files were found so far, and a Cancel button.
The delay keeps small folders, which are walked in milliseconds, from
flashing it.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from .controller import QueueController

SHOW_AFTER_MS = 300


class ScanStatus(QWidget):
    def __init__(self, controller: QueueController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setObjectName("scanStatus")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 8, 0)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 0)  # busy, not a fraction: the folder's size is unknown until walked
        self.bar.setFixedWidth(90)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        self.label = QLabel(self)
        self.cancel = QToolButton(self)
        self.cancel.setAutoRaise(True)
        self.cancel.clicked.connect(controller.cancel_scan)
        row.addWidget(self.bar)
        row.addWidget(self.label)
        row.addWidget(self.cancel)
        self._delay = QTimer(self)
        self._delay.setSingleShot(True)
        self._delay.setInterval(SHOW_AFTER_MS)
        self._delay.timeout.connect(self._update)
        controller.scanChanged.connect(self._changed)
        self.hide()
        self.retranslate()

    def retranslate(self) -> None:
        self.cancel.setText(self.tr("Cancel"))
        self.cancel.setToolTip(self.tr("Stop looking; nothing from this folder is added"))
        self._update_text()

    def _changed(self) -> None:
        if not self.controller.scanning:
            self._delay.stop()
            self.hide()
        elif not self.isVisible() and not self._delay.isActive():
            self._delay.start()
        self._update_text()

    def _update(self) -> None:
        self.setVisible(self.controller.scanning)
        self._update_text()

    def _update_text(self) -> None:
        self.label.setText(self.tr("Looking for audio and video files… {0} found").format(self.controller.scan_found))
