"""Engine and dictation errors in the user's language.

The engine speaks English one-liners on purpose (the CLI, logs and bug
reports need one stable language). The GUI translates the problems it knows
and shows the English text for the rest: an untranslated but precise message
beats a translated vague one.

Files: an `AudioError` carries `.path` and `.problem`, and the audio module's
problems are a fixed set. Each known one gets a short code (plus arguments for
the parametric ones, e.g. where decoding failed). The queue stores that code
next to the English text, so a restarted app translates rows that failed in
an earlier session, and a later engine that rewords a message does not
un-translate old rows. Rows stored before codes existed are classified from
their English text when shown.

Dictation messages (microphone, hotkey, output) are recognised by their
stable English prefix; what follows the prefix (a device name, an OS error)
stays as it is.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from ..engine.errors import AudioError, TingjiError

CONTEXT = "Errors"


@dataclass(frozen=True)
class Problem:
    """Why a file failed: the engine's English text, and a code when it is a known problem."""

    text: str
    code: str = ""
    args: tuple[str, ...] = ()

    def code_json(self) -> str | None:
        """What the store keeps beside the text (None: unknown problem, shown in English)."""
        return json.dumps([self.code, *self.args], ensure_ascii=False) if self.code else None

    @classmethod
    def from_stored(cls, text: str | None, code_json: str | None) -> "Problem":
        if code_json:
            try:
                code, *args = json.loads(code_json)
                if isinstance(code, str) and code in _TEXTS:
                    return cls(text or "", code, tuple(str(a) for a in args))
            except (ValueError, TypeError):
                pass
        return classify(text or "")


# Fixed problems of tingji.engine.audio: English text -> code.
_FIXED = {
    "file not found": "not_found",
    "is a folder, not a file": "folder",
    "is not a regular file": "not_regular",
    "permission denied": "permission",
    "file is empty": "empty",
    "not an audio or video file Tingji can read": "not_media",
    "has no audio track": "no_audio_track",
    "contains no audio samples": "no_samples",
    "no model loaded": "no_model",
}
# Parametric problems: pattern on the English text -> code (groups become the arguments).
_PATTERNS = (
    (re.compile(r"decoding failed at ([\d.]+) s: (.*)"), "decode_failed"),
    (re.compile(r"cannot be read \((.*)\)"), "unreadable"),
)


def _texts() -> dict[str, Callable[[], str]]:
    """Code -> translated text (looked up at call time, so a language switch applies at once).

    Literal `translate("Errors", ...)` calls, so that pyside6-lupdate finds them."""
    return {
        "not_found": lambda: QCoreApplication.translate("Errors", "file not found"),
        "folder": lambda: QCoreApplication.translate("Errors", "is a folder, not a file"),
        "not_regular": lambda: QCoreApplication.translate("Errors", "is not a regular file"),
        "permission": lambda: QCoreApplication.translate("Errors", "permission denied"),
        "empty": lambda: QCoreApplication.translate("Errors", "file is empty"),
        "not_media": lambda: QCoreApplication.translate("Errors", "not an audio or video file Tingji can read"),
        "no_audio_track": lambda: QCoreApplication.translate("Errors", "has no audio track"),
        "no_samples": lambda: QCoreApplication.translate("Errors", "contains no audio samples"),
        "no_model": lambda: QCoreApplication.translate("Errors", "no model loaded"),
        "decode_failed": lambda: QCoreApplication.translate("Errors", "decoding failed at {0} s: {1}"),
        "unreadable": lambda: QCoreApplication.translate("Errors", "cannot be read ({0})"),
    }


_TEXTS = _texts()


def classify(problem: str) -> Problem:
    """The problem for an English problem text (no file name in front)."""
    code = _FIXED.get(problem)
    if code:
        return Problem(problem, code)
    for pattern, code in _PATTERNS:
        m = pattern.fullmatch(problem)
        if m:
            return Problem(problem, code, m.groups())
    return Problem(problem)


def problem_of(exc: BaseException) -> Problem:
    """What a queue row shows for an exception: an AudioError's problem (the row names the file)."""
    if isinstance(exc, AudioError):
        return classify(exc.problem)
    if isinstance(exc, TingjiError):
        return classify(str(exc))
    return Problem(f"internal error ({type(exc).__name__}: {exc}); please report this")


def localized(problem: Problem) -> str:
    """The problem in the current UI language (English text when it is not a known one)."""
    text = _TEXTS.get(problem.code)
    if text is None:
        return problem.text
    try:
        return text().format(*problem.args)
    except (IndexError, KeyError, ValueError):  # a translation with a broken placeholder
        return problem.text


def localized_stored(text: str | None, code_json: str | None) -> str:
    return localized(Problem.from_stored(text, code_json))


def localized_message(message: str) -> str:
    """A whole one-line message in the UI language: "<file>: <problem>" keeps the file name,
    dictation messages keep their details (device names, OS errors); anything else stays English."""
    problem = classify(message)
    if problem.code:
        return localized(problem)
    suffix = ""
    if message.endswith(_IN_HISTORY):
        message, suffix = message[: -len(_IN_HISTORY)], QCoreApplication.translate(CONTEXT, _IN_HISTORY)
    for pattern, translated in _dictation_patterns():
        m = pattern.fullmatch(message)
        if m:
            return translated.format(*m.groups()) + suffix
    head, sep, tail = message.rpartition(": ")
    while sep:  # the file name may itself contain ": "
        problem = classify(tail)
        if problem.code:
            return f"{head}: {localized(problem)}{suffix}"
        head, sep, rest = head.rpartition(": ")
        tail = f"{rest}: {tail}"
    return message + suffix


_IN_HISTORY = " (the text is in the dictation history)"
QT_TRANSLATE_NOOP("Errors", " (the text is in the dictation history)")

# Messages of tingji.dictation (capture, hotkey, output), with their variable parts as groups.
_DICTATION = tuple((re.compile(pattern), source) for pattern, source in (
    (r"global hotkey unavailable: (.*)", QT_TRANSLATE_NOOP("Errors", "global hotkey unavailable: {0}")),
    (r"no microphone found \(no default input device\)",
     QT_TRANSLATE_NOOP("Errors", "no microphone found (no default input device)")),
    (r"microphone disconnected or stopped working",
     QT_TRANSLATE_NOOP("Errors", "microphone disconnected or stopped working")),
    (r"microphone (.+) not found \((.*)\)", QT_TRANSLATE_NOOP("Errors", "microphone {0} not found ({1})")),
    (r"cannot open microphone (.+?): (.*)", QT_TRANSLATE_NOOP("Errors", "cannot open microphone {0}: {1}")),
    (r"(.+): not an input device", QT_TRANSLATE_NOOP("Errors", "{0}: not an input device")),
    (r"audio input unavailable: (.*)", QT_TRANSLATE_NOOP("Errors", "audio input unavailable: {0}")),
    (r"cannot send keys to other applications: (.*)",
     QT_TRANSLATE_NOOP("Errors", "cannot send keys to other applications: {0}")),
    (r"cannot use the clipboard: (.*)", QT_TRANSLATE_NOOP("Errors", "cannot use the clipboard: {0}")),
    (r"typing the text failed: (.*)", QT_TRANSLATE_NOOP("Errors", "typing the text failed: {0}")),
    (r"the clipboard did not respond \(is the app's window busy\?\)",
     QT_TRANSLATE_NOOP("Errors", "the clipboard did not respond (is the app's window busy?)")),
))


def _dictation_patterns() -> list[tuple[re.Pattern[str], str]]:
    return [(p, QCoreApplication.translate(CONTEXT, source)) for p, source in _DICTATION]
