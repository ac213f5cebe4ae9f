"""Errors in the user's language, by their codes.

The engine, the model manager and dictation speak English one-liners (the
CLI, logs and bug reports need one stable language), and every error carries
the code and fields of its message (tingji/errors.py). Here the code picks
the message, Qt's translator gives its template in the UI language ("Errors"
context, the code as disambiguation), and the fields fill it in: a file
name, a device name or what the system said stays as it is, and a field that
is itself an error is translated the same way. A message without a
translation, or whose translation lost or added a field, is shown in
English: an untranslated but precise message beats a garbled one.

A queue row or a dictation take keeps the English line *and* its report
(ErrorReport.to_json), so a restarted app translates what failed in an
earlier session, and a later release that rewords the English keeps old rows
translated. Rows stored by older versions stay readable: the short codes of
the audio problems (`["decode_failed", "12.0", "..."]`) are mapped to their
messages, a row without a code whose text is a message without fields is
recognised, and anything else shows its stored English text.
"""

from __future__ import annotations

import json
from dataclasses import replace

from PySide6.QtCore import QCoreApplication

from ..engine import messages as engine_messages
from ..errors import (
    ErrorReport,
    Message,
    TingjiError,
    catalogue,
    catalogues,
    placeholders,
    render,
    reports_from_json,
)
from . import messages as gui_messages

CONTEXT = "Errors"

# Every catalogue of messages, as tingji/errors.py registers them. tests/gui/test_error_codes.py checks that no
# package's messages.py is missing and that each message has a Chinese translation; tools/translations.py
# writes them all into the .ts.
CATALOGUES = catalogues()
BY_CODE: dict[str, Message] = {m.code: m for module in CATALOGUES for m in catalogue(module)}

# Rows stored before codes named their message: the short codes of that time.
_LEGACY = {
    "not_found": engine_messages.NOT_FOUND,
    "folder": engine_messages.FOLDER,
    "not_regular": engine_messages.NOT_REGULAR,
    "permission": engine_messages.PERMISSION,
    "empty": engine_messages.EMPTY,
    "not_media": engine_messages.NOT_MEDIA,
    "no_audio_track": engine_messages.NO_AUDIO_TRACK,
    "no_samples": engine_messages.NO_SAMPLES,
    "no_model": gui_messages.NO_MODEL,
    "unreadable": engine_messages.UNREADABLE,
    "decode_failed": engine_messages.DECODE_FAILED,
}
_BY_TEXT = {m.text: m for m in BY_CODE.values() if not m.fields}


def translated(message: Message) -> str:
    """The message's template in the UI language (the English one where there is no translation)."""
    return QCoreApplication.translate(CONTEXT, message.text, message.code)


def localized(error: TingjiError | ErrorReport | None) -> str:
    """What the error says, in the UI language ("" for None)."""
    if error is None:
        return ""
    report = error.report() if isinstance(error, TingjiError) else error
    text = _text(report)
    return f"{report.where}: {text}" if report.where is not None else text


def _text(report: ErrorReport) -> str:
    message = BY_CODE.get(report.code or "")
    if message is None or set(report.fields) != message.fields:  # unknown, or stored by another version
        return report.text
    template = translated(message)
    if placeholders(template) != placeholders(message.text):  # a translation that lost or added a field
        return report.text
    fields = {k: localized(v) if isinstance(v, ErrorReport) else v for k, v in report.fields.items()}
    try:
        return render(template, fields)
    except (KeyError, IndexError, ValueError, TypeError):  # e.g. a stored field of another type
        return report.text


def problem_of(exc: BaseException) -> ErrorReport:
    """What a queue row keeps of an exception: its problem, without the file name (the row names it)."""
    if isinstance(exc, TingjiError):
        return replace(exc.report(), where=None)
    return internal_error(exc).report()


def internal_error(exc: BaseException) -> TingjiError:
    """Anything that is not a TingjiError is a bug: say so, as Python says it."""
    return TingjiError(gui_messages.INTERNAL, kind=type(exc).__name__, detail=str(exc))


def stored_report(text: str | None, code_json: str | None) -> ErrorReport:
    """The report a queue row or a take kept, whichever version of Tingji stored it."""
    text = text or ""
    legacy = _legacy(text, code_json)
    return legacy if legacy is not None else ErrorReport.from_json(text, code_json)


def _legacy(text: str, code_json: str | None) -> ErrorReport | None:
    """A row from before codes were messages' codes (None: not one, or nothing to recognise)."""
    if not code_json:
        message = _BY_TEXT.get(text)
        return ErrorReport(text, message.code) if message is not None else None
    try:
        data = json.loads(code_json)
    except ValueError:
        return ErrorReport(text)
    if not isinstance(data, list) or not data or data[0] not in _LEGACY:
        return None
    message, args = _LEGACY[data[0]], [str(a) for a in data[1:]]
    if message is engine_messages.DECODE_FAILED and len(args) == 2:
        try:
            return ErrorReport(text, message.code, {"at": float(args[0]), "reason": args[1]})
        except ValueError:
            return ErrorReport(text)
    if message is engine_messages.UNREADABLE and len(args) == 1:
        return ErrorReport(text, message.code, {"reason": args[0]})
    return ErrorReport(text, message.code) if not message.fields and not args else ErrorReport(text)


def localized_stored(text: str | None, code_json: str | None) -> str:
    """A stored error (English text + its report) in the UI language."""
    return localized(stored_report(text, code_json))


def localized_warnings(text: str | None, code_json: str | None) -> str:
    """A queue row's warnings (its English `warning` + their reports, `reports_to_json`) in the UI language.

    A row from before warnings had codes keeps its English text (recognised when it is one
    message without fields)."""
    reports = reports_from_json(code_json)
    if reports is None:
        return localized(stored_report(text, None)) if text else ""
    separator = QCoreApplication.translate("Warnings", "; ", "between two warnings of one file")
    return separator.join(localized(r) for r in reports)
