"""A catalog model's facts (`CatalogModel.about`) in the user's language: size, speed, languages, uses.

The catalog says them in a fixed vocabulary (tingji.models.about); the model
picker's cards and the model manager's details say them in words, the same
words in both places (translation context "ModelCard").
"""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QPalette

from ...engine.families.fun_asr_nano.section import NanoSection
from ...engine.families.fun_asr_nano.section import timestamps as nano_timestamps
from ...engine.manifest import Manifest
from ...models.about import ModelAbout
from ...models.catalog import CatalogModel
from ...models.diskspace import format_bytes
from .. import theme
from ..languages import language_name

SHOWN_LANGUAGES = 6  # more than this: the first ones and a count, the rest in the tooltip


def convertible(
    entry: CatalogModel, catalog: Mapping[str, CatalogModel] | None = None, installed: Collection[str] = ()
) -> bool:
    """Whether this build of Tingji can install `entry`: a ready-made model, or an official checkpoint
    whose family it can convert (`export.templates.can_convert`), with the companions that come with
    it (those in `catalog` and not `installed` yet). An entry that names no family is not refused
    here: its converter says what it lacks."""
    from ...export.templates import can_convert  # onnx: loaded when a catalog is shown, not at start

    if entry.kind != "official-checkpoint":
        return True
    if entry.about is not None and not can_convert(entry.about.family):
        return False
    companions = [(catalog or {}).get(name) for name in entry.companions if name not in installed]
    return all(convertible(c) for c in companions if c is not None)


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
    """How the model arrives: converted here (or that this build cannot convert it), or ready to use."""
    if entry.kind != "official-checkpoint":
        return QCoreApplication.translate("ModelCard", "Downloaded ready to use.")
    if not convertible:
        return QCoreApplication.translate(
            "ModelCard", "This build of Tingji cannot convert {0}, so it cannot be downloaded here."
        ).format(short_title(entry))
    return QCoreApplication.translate("ModelCard", "Downloaded from the publisher and converted on this computer.")


def source_text(manifest: Manifest) -> str:
    """Where an installed model's files were downloaded from (the mirror's host), or "" when not recorded."""
    host = manifest.source.get("mirror")
    if not isinstance(host, str) or not host:
        return ""
    return QCoreApplication.translate("ModelCard", "Downloaded from: {0}").format(host)


def timestamps_text(manifest: Manifest) -> str:
    """Whether an installed Fun-ASR-Nano times its words, or "" for other families.

    The recognizer's own rule (`fun_asr_nano.section.timestamps`): Hugging Face's model.pt has no CTC
    head (FunASR issue #3496), so a model converted from it times no words."""
    if not isinstance(manifest.section, NanoSection):
        return ""
    if nano_timestamps(manifest) == "tokens":
        return QCoreApplication.translate("ModelCard", "Timestamps: per word (CTC head)")
    return QCoreApplication.translate(
        "ModelCard",
        "Timestamps: none - this copy has no CTC head (the Hugging Face model.pt); the ModelScope copy has one",
    )


def facts_html(about: ModelAbout, palette: QPalette) -> str:
    """Speed, languages and best uses as labelled lines (rich text)."""
    secondary = theme.secondary_text(palette).name()
    rows = [
        (QCoreApplication.translate("ModelCard", "Speed"), speed_text(about)),
        (QCoreApplication.translate("ModelCard", "Languages"), languages_text(about)[0]),
        (QCoreApplication.translate("ModelCard", "Best for"), best_for_text(about)),
    ]
    return "<br>".join(f"<span style='color:{secondary}'>{html.escape(k)}:</span> {html.escape(v)}" for k, v in rows)
