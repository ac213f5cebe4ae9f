"""Spoken languages in the user's language, and the menu of those a model can be told.

Which languages to offer is the model's business: the loaded Engine's
capabilities (from its manifest) list the codes (`LoadedModel.languages`).
This module only names them: every code of `tingji.engine.languages.NAMES`
has a translatable name here (context "Languages"; a test checks the two
agree); a code the table does not know shows as the model spells it.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QPoint, QRect, QSize
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

CONTEXT = "Languages"
SPOKEN_NAMES = {
    "zh": QT_TRANSLATE_NOOP("Languages", "Chinese"),
    "en": QT_TRANSLATE_NOOP("Languages", "English"),
    "yue": QT_TRANSLATE_NOOP("Languages", "Cantonese"),
    "ja": QT_TRANSLATE_NOOP("Languages", "Japanese"),
    "ko": QT_TRANSLATE_NOOP("Languages", "Korean"),
    "ar": QT_TRANSLATE_NOOP("Languages", "Arabic"),
    "de": QT_TRANSLATE_NOOP("Languages", "German"),
    "fr": QT_TRANSLATE_NOOP("Languages", "French"),
    "es": QT_TRANSLATE_NOOP("Languages", "Spanish"),
    "pt": QT_TRANSLATE_NOOP("Languages", "Portuguese"),
    "id": QT_TRANSLATE_NOOP("Languages", "Indonesian"),
    "it": QT_TRANSLATE_NOOP("Languages", "Italian"),
    "ru": QT_TRANSLATE_NOOP("Languages", "Russian"),
    "th": QT_TRANSLATE_NOOP("Languages", "Thai"),
    "vi": QT_TRANSLATE_NOOP("Languages", "Vietnamese"),
    "tr": QT_TRANSLATE_NOOP("Languages", "Turkish"),
    "hi": QT_TRANSLATE_NOOP("Languages", "Hindi"),
    "ms": QT_TRANSLATE_NOOP("Languages", "Malay"),
    "nl": QT_TRANSLATE_NOOP("Languages", "Dutch"),
    "sv": QT_TRANSLATE_NOOP("Languages", "Swedish"),
    "da": QT_TRANSLATE_NOOP("Languages", "Danish"),
    "fi": QT_TRANSLATE_NOOP("Languages", "Finnish"),
    "pl": QT_TRANSLATE_NOOP("Languages", "Polish"),
    "cs": QT_TRANSLATE_NOOP("Languages", "Czech"),
    "fil": QT_TRANSLATE_NOOP("Languages", "Filipino"),
    "fa": QT_TRANSLATE_NOOP("Languages", "Persian"),
    "el": QT_TRANSLATE_NOOP("Languages", "Greek"),
    "hu": QT_TRANSLATE_NOOP("Languages", "Hungarian"),
    "mk": QT_TRANSLATE_NOOP("Languages", "Macedonian"),
    "ro": QT_TRANSLATE_NOOP("Languages", "Romanian"),
}


def language_name(code: str) -> str:
    """The language's name in the UI language; an unknown code as it is."""
    english = SPOKEN_NAMES.get(code)
    return QCoreApplication.translate(CONTEXT, english) if english else code


def fill_language_menu(combo: QComboBox, codes: Sequence[str] | None, current: str) -> None:
    """Automatic detection first, then `codes` (None: not known yet) in the model's order; a
    `current` choice the model does not list stays, marked, so the setting is never changed silently."""
    combo.blockSignals(True)
    try:
        combo.clear()
        combo.addItem(QCoreApplication.translate("Languages", "Auto (detect)"), "")
        for code in codes or ():
            combo.addItem(language_name(code), code)
        if current and combo.findData(current) < 0:
            label = language_name(current)
            if codes is not None:
                label = QCoreApplication.translate("Languages", "{0} (this model detects instead)").format(label)
            combo.addItem(label, current)
        combo.setCurrentIndex(max(0, combo.findData(current)))
    finally:
        combo.blockSignals(False)


class FittingComboBox(QComboBox):
    """A combo box as wide as its items, with room for the longest as the style draws it.

    AdjustToContents sizes the box for the text plus the style's frame and arrow, but the
    Windows styles draw the text inset inside a narrower field: under Wine the last character
    of a short item ("自动识别") was cut. The hint grows until the field holds the text and
    an average character's room on each side.
    """

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        opt.rect = QRect(QPoint(0, 0), hint)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, opt, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        fm = self.fontMetrics()
        text = max((fm.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0)
        short = text + 2 * fm.averageCharWidth() - field.width()
        return hint if short <= 0 else QSize(hint.width() + short, hint.height())
