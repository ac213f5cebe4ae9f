"""UI language: Qt translation files, chosen from the settings or the system locale.

Sources are `i18n/tingji_<lang>.ts` (edit them with Qt Linguist, or refresh
them from the code with `pyside6-lupdate`), compiled to the committed `.qm`
files with `pyside6-lrelease`. English is the source language and needs no
file. Switching installs new translators; Qt then sends every widget a
LanguageChange event and the widgets re-set their texts, so a switch takes
effect at once, without a restart.

Refreshing after changing UI strings or error messages (from the repository root):

    python3 tools/translations.py --lupdate

That runs `pyside6-lupdate` on the GUI's sources, writes every error message of
the `messages.py` catalogues into the "Errors" context (lupdate cannot see
them: they are not `tr()` calls), and compiles the `.qm` with `pyside6-lrelease`.
"""

from __future__ import annotations

from importlib import resources

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

SUPPORTED = ("en", "zh_CN")
_installed: list[QTranslator] = []


def resolve(setting: str, locale: QLocale | None = None) -> str:
    """ "system" -> the first supported language of the user's UI languages (else English)."""
    if setting in SUPPORTED:
        return setting
    locale = locale or QLocale.system()
    for lang in locale.uiLanguages():
        tag = lang.replace("-", "_").lower()
        if tag.startswith("zh"):
            return "zh_CN"  # Traditional Chinese readers get Simplified until a zh_TW file exists
        if tag.startswith("en"):
            return "en"
    return "en"


def install(app: QCoreApplication, setting: str) -> str:
    """Install the translators for `setting` (replacing earlier ones); returns the language used."""
    lang = resolve(setting)
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    if lang != "en":
        ours = QTranslator(app)
        data = resources.files("tingji.gui").joinpath("i18n", f"tingji_{lang}.qm")
        if data.is_file():
            with resources.as_file(data) as path:
                if ours.load(str(path)):
                    _installed.append(ours)
        qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        for base in ("qtbase", "qt"):  # Qt's own strings: file dialogs, standard buttons
            qt = QTranslator(app)
            if qt.load(f"{base}_{lang}", qt_dir):
                _installed.append(qt)
                break
    for translator in _installed:
        app.installTranslator(translator)
    QLocale.setDefault(QLocale(lang))
    return lang
