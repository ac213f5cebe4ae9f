"""A catalog model's facts (`CatalogModel.about`) in the user's language: size, speed, languages, uses.

The catalog says them in a fixed vocabulary (tingji.models.about); the model
picker's cards and the model manager's details say them in words, the same
words in both places (translation context "ModelCard").
"""

from __future__ import annotations

import html
import importlib.util

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QPalette

from ...export.extra import EXTRA_MODULES, INSTALL_HINT
from ...models.about import ModelAbout
from ...models.catalog import CatalogModel
from ...models.diskspace import format_bytes
from .. import theme
from ..languages import language_name

SHOWN_LANGUAGES = 6  # more than this: the first ones and a count, the rest in the tooltip


def export_extra_present() -> bool:
    """Whether this installation can convert official checkpoints (the export extra's modules exist)."""
    return all(importlib.util.find_spec(name) is not None for name in sorted(EXTRA_MODULES))


def short_title(entry: CatalogModel) -> str:
    """The model's own name from the catalog title ("SenseVoice-Small (official …)" -> "SenseVoice-Small")."""
    return entry.title.split(" (")[0].strip() or entry.name


def size_text(about: ModelAbout) -> str:
    if about.download_mb:
        return QCoreApplication.translate("ModelCard", "about {0}").format(format_bytes(about.download_mb * 1e6))
    return QCoreApplication.translate("ModelCard", "size shown once the download starts")


def speed_text(about: ModelAbout) -> str:
    return {
        "fastest": QCoreApplication.translate("ModelCard", "Fastest"),
        "fast": QCoreApplication.translate("ModelCard", "Fast"),
        "moderate": QCoreApplication.translate("ModelCard", "Moderate"),
        "slow": QCoreApplication.translate("ModelCard", "Slower"),
    }[about.speed]


def _join(items: list[str]) -> str:
    return QCoreApplication.translate("ModelCard", ", ").join(items)


def best_for_text(about: ModelAbout) -> str:
    words = {
        "dictation": QCoreApplication.translate("ModelCard", "dictation"),
        "drafts": QCoreApplication.translate("ModelCard", "quick drafts"),
        "files": QCoreApplication.translate("ModelCard", "transcribing files"),
        "hotwords": QCoreApplication.translate("ModelCard", "names and terms (hotwords)"),
        "languages": QCoreApplication.translate("ModelCard", "many languages"),
        "accuracy": QCoreApplication.translate("ModelCard", "the best accuracy"),
        "ready-made": QCoreApplication.translate("ModelCard", "no conversion needed"),
        "timestamps": QCoreApplication.translate("ModelCard", "Chinese files with exact timestamps"),
        "punctuation": QCoreApplication.translate("ModelCard", "punctuation for models that write none"),
    }
    return _join([words[w] for w in about.best_for])


def languages_text(about: ModelAbout) -> tuple[str, str]:
    """The languages line, and the full list (for a tooltip) when the line shortens it."""
    names = [language_name(code) for code in about.languages]
    if len(names) <= SHOWN_LANGUAGES:
        return _join(names), ""
    return QCoreApplication.translate("ModelCard", "{0} languages: {1}, …").format(
        len(names), _join(names[: SHOWN_LANGUAGES - 1])
    ), _join(names)


def how_text(entry: CatalogModel, convertible: bool) -> str:
    """How the model arrives: converted here (and whether this installation can), or ready to use."""
    if entry.kind != "official-checkpoint":
        return QCoreApplication.translate("ModelCard", "Downloaded ready to use.")
    how = QCoreApplication.translate("ModelCard", "Downloaded from the publisher and converted on this computer.")
    if not convertible:
        how += " " + QCoreApplication.translate(
            "ModelCard", "Converting needs the export extra, which this installation lacks ({0})."
        ).format(INSTALL_HINT)
    return how


def facts_html(about: ModelAbout, palette: QPalette) -> str:
    """Speed, languages and best uses as labelled lines (rich text)."""
    secondary = theme.secondary_text(palette).name()
    rows = [
        (QCoreApplication.translate("ModelCard", "Speed"), speed_text(about)),
        (QCoreApplication.translate("ModelCard", "Languages"), languages_text(about)[0]),
        (QCoreApplication.translate("ModelCard", "Best for"), best_for_text(about)),
    ]
    return "<br>".join(f"<span style='color:{secondary}'>{html.escape(k)}:</span> {html.escape(v)}" for k, v in rows)
