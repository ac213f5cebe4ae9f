"""User settings: a small JSON file at `paths.settings_path()`. Imports no Qt.

Plain JSON (not QSettings) so that the file is the same on every platform, can
be read by the CLI and by support staff, and lives with the rest of the user
data under one folder. It is written to a temporary name and renamed, so a
crash mid-write never leaves a truncated file; a file that cannot be parsed is
set aside as `settings.json.bad` and defaults are used, so a broken file never
keeps the app from starting.
"""

from __future__ import annotations

import json
import logging
import math
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .. import atomic
from ..dictation.settings import DictationSettings
from ..engine.languages import normalise as normalise_language
from ..engine.options import MAX_SPEAKERS, TranscribeOptions
from ..engine.sessions import PROVIDER_CHOICES
from ..engine.writers import FORMATS
from ..paths import settings_path

log = logging.getLogger(__name__)

UI_LANGUAGES = ("system", "en", "zh_CN")
APPEARANCES = ("system", "light", "dark")
PAGES = ("files", "dictation")
# The spoken language is a code (tingji.engine.languages); which ones a model can be told is its
# own business (the files page offers the loaded model's list). "" lets it detect.
MAX_LANGUAGE_CHARS = 32
MAX_DEVICE_CHARS = 128  # DXGI's adapter descriptions are at most 128 characters
MAX_VULKAN_NAME_CHARS = 256  # VK_MAX_PHYSICAL_DEVICE_NAME_SIZE
MAX_UNLOAD_AFTER_MIN = 24 * 60
# "Identify speakers" for files: off, found from the audio, or a known count (one speaker needs no labels).
SPEAKER_CHOICES = ("off", "auto", *(str(n) for n in range(2, MAX_SPEAKERS + 1)))


@dataclass
class Settings:
    """Everything the user can change. Unknown or invalid values fall back to defaults."""

    model: str = ""  # files: installed model name or a model folder; "" = the first installed model
    dictation_model: str = ""  # dictation's model, as `model`; "" = the same as files
    provider: str = "auto"
    device: str = ""  # DirectML's graphics adapter, by name; "" = the high-performance one
    # Where an LLM decoder runs: "auto", "cpu" or a Vulkan device by name (engine_worker.decoder_choice).
    decoder_device: str = "auto"
    # How files and dictation are recognised (`transcribe_options()`): one language, one hotword list.
    language: str = ""  # "" = detect
    hotwords: list[str] = field(default_factory=list)
    itn: bool = True  # text normalisation (written numbers, punctuation); only set by hand in the file
    formats: list[str] = field(default_factory=lambda: ["txt", "srt"])  # for automatic export
    auto_export: bool = False  # write transcripts next to each source file when done
    ui_language: str = "system"
    appearance: str = "system"
    window_geometry: str = ""  # Qt's saveGeometry(), base64; the window's business only
    splitter_state: str = ""
    # Hotkey, mode, microphone, ...: kept here so that one file holds all settings. How takes are
    # recognised is the fields above, as for files.
    dictation: DictationSettings = field(default_factory=DictationSettings)
    page: str = "files"  # the main window's page: "files" or "dictation"
    # Close the model after this many idle minutes to free its memory; 0 = never. The dialog offers whole
    # minutes; the file may hold a fraction of one.
    unload_after_min: float = 0.0
    punctuation: bool = True  # punctuate transcripts of models that write none, with the installed punctuation model
    tray_notice_shown: bool = False  # "Tingji keeps running in the tray" was said once
    speakers: str = "off"  # files: label who spoke, one of SPEAKER_CHOICES (a file may have its own: the queue's)
    draft: bool = True  # the LLM verifies its CTC head's draft in blocks (TranscribeOptions.draft): off only to compare
    # Another installed model drafts for an LLM model without a CTC head (Qwen3-ASR; engine.draft_sources).
    draft_model: bool = True

    def transcribe_options(self) -> TranscribeOptions:
        """What every transcription asks of the model: files as they are, dictation without timestamps."""
        return TranscribeOptions(
            language=self.language or None, hotwords=tuple(self.hotwords), itn=self.itn, draft=self.draft
        )

    def files_options(self, speakers: str | None = None) -> TranscribeOptions:
        """A file's options: `transcribe_options()` with speaker labels (the file's own choice, else the setting)."""
        return replace(self.transcribe_options(), speakers=speakers or self.speakers)

    def normalised(self) -> Settings:
        """A copy with every field forced into its allowed range."""
        s = replace(self)
        s.model = str(s.model or "").strip()
        s.dictation_model = str(s.dictation_model or "").strip()
        s.provider = s.provider if s.provider in PROVIDER_CHOICES else "auto"
        device = str(s.device or "").strip()
        s.device = device if len(device) <= MAX_DEVICE_CHARS and device.isprintable() else ""
        decoder = str(s.decoder_device or "").strip()
        s.decoder_device = decoder if 0 < len(decoder) <= MAX_VULKAN_NAME_CHARS and decoder.isprintable() else "auto"
        code = normalise_language(str(s.language or "")) or ""
        s.language = code if len(code) <= MAX_LANGUAGE_CHARS and code.isprintable() else ""
        s.hotwords = [str(w).strip() for w in (s.hotwords or []) if str(w).strip()]
        formats = [f for f in (s.formats or []) if f in FORMATS]
        s.formats = list(dict.fromkeys(formats)) or ["txt"]
        s.auto_export = bool(s.auto_export)
        s.itn = bool(s.itn)
        s.ui_language = s.ui_language if s.ui_language in UI_LANGUAGES else "system"
        s.appearance = s.appearance if s.appearance in APPEARANCES else "system"
        s.window_geometry = str(s.window_geometry or "")
        s.splitter_state = str(s.splitter_state or "")
        # Parsed again: a copy that the caller's later edits cannot reach, checked as a file is.
        dictation = asdict(s.dictation) if isinstance(s.dictation, DictationSettings) else s.dictation
        s.dictation = DictationSettings.from_dict(dictation)
        s.page = s.page if s.page in PAGES else "files"
        s.tray_notice_shown = bool(s.tray_notice_shown)
        s.punctuation = bool(s.punctuation)
        s.draft = bool(s.draft)
        s.draft_model = bool(s.draft_model)
        s.speakers = s.speakers if s.speakers in SPEAKER_CHOICES else "off"
        minutes = float(s.unload_after_min)
        s.unload_after_min = max(0.0, min(float(MAX_UNLOAD_AFTER_MIN), minutes)) if math.isfinite(minutes) else 0.0
        return s


def _from_dict(data: dict[str, Any]) -> Settings:
    known = {f.name for f in fields(Settings)}
    dictation = data.get("dictation")
    if "itn" not in data and isinstance(dictation, dict) and isinstance(dictation.get("itn"), bool):
        data = {**data, "itn": dictation["itn"]}  # older files kept it in the dictation part, for takes only
    kwargs: dict[str, Any] = {}
    defaults = Settings()
    for key, value in data.items():
        if key not in known:
            continue  # written by a newer version, or a typo: ignore rather than fail
        default = getattr(defaults, key)
        if key == "dictation":
            kwargs[key] = DictationSettings.from_dict(value)  # field by field, never all or nothing
            continue
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, (list, dict)):
            ok = isinstance(value, type(default))
        elif isinstance(default, (int, float)):  # a number, whole or not; never a bool
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, type(default))
        if ok:
            kwargs[key] = value
        else:
            log.warning("settings: ignoring %s=%r (expected %s)", key, value, type(default).__name__)
    return Settings(**kwargs).normalised()


def load(path: str | os.PathLike[str] | None = None) -> Settings:
    """Read the settings; defaults for anything missing, a corrupt file is set aside."""
    path = Path(path) if path is not None else settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        log.warning("settings: cannot read %s (%s); using defaults", path, exc)
        return Settings()
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        log.warning("settings: %s is not valid (%s); set aside as .bad, using defaults", path, exc)
        try:
            os.replace(path, path.with_name(path.name + ".bad"))
        except OSError:
            pass
        return Settings()
    return _from_dict(data)


def save(settings: Settings, path: str | os.PathLike[str] | None = None) -> Path:
    """Write atomically and durably (tingji.atomic): a crash never leaves a torn settings file."""
    path = Path(path) if path is not None else settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic.write_text(path, json.dumps(asdict(settings.normalised()), ensure_ascii=False, indent=2) + "\n")
