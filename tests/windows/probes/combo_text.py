"""The files model bar's language menu drawn by Qt's Windows style (Windows side).

usage: python combo_text.py    (on a display: winenv.run gives it Xvfb)
Prints one JSON line: the style, the menu's width, and whether its longest item's pixels at that
width are those of the same menu drawn 100 px wider (False: the text is cut).
"""

import json
import os

import numpy as np
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionComboBox

from tingji.gui import i18n
from tingji.gui.files.model_bar import FilesModelBar


def drawn(combo, width: int) -> tuple[np.ndarray, QRect]:
    combo.resize(width, combo.sizeHint().height())
    img = combo.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4)
    opt = QStyleOptionComboBox()
    combo.initStyleOption(opt)
    opt.rect = QRect(QPoint(0, 0), combo.size())
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt, QStyle.SubControl.SC_ComboBoxEditField)
    return rows[:, : img.width(), :3].copy(), field


def main() -> None:
    os.environ.pop("QT_QPA_PLATFORM", None)  # the test process's offscreen: Windows' own platform and style here
    app = QApplication([])
    i18n.install(app, "zh_CN")
    bar = FilesModelBar()
    bar.show_languages(["en"], "")  # Auto ("自动识别", the longest item) and English ("英语")
    combo = bar.language
    width = combo.sizeHint().width()
    narrow, _ = drawn(combo, width)
    wide, field = drawn(combo, width + 100)
    ink = wide[field.top() + 2 : field.bottom() - 1, field.left() + 2 : field.right() - 1].min(axis=2) < 100
    end = field.left() + 2 + int(np.flatnonzero(ink.any(axis=0)).max()) + 1  # the text's last inked column
    report = {
        "style": app.style().name(),
        "text": combo.currentText(),
        "width": width,
        "text_end": end,
        "whole": bool(np.array_equal(narrow[:, : end + 1], wide[:, : end + 1])),
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
