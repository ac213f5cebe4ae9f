"""Errors a user sees: one line each, with a stable code. No Qt, no other Tingji module.

Everything Tingji raises on purpose derives from `TingjiError`. Its `str()` is
a complete English one-liner fit for stderr, a log or a status bar; its
`code` and `fields` let a UI say the same in another language (the GUI does,
`tingji/gui/errors.py`) and let a store keep it (`report().to_json()`), so a
row that failed in an earlier session is translated again after a restart and
a later release that rewords the English keeps old rows translated. Anything
else that escapes is a bug, and the CLI and GUI say so.

Why codes instead of English text: a UI that recognises errors by matching
their English wording breaks silently whenever a message is reworded, and
cannot tell the translatable part from a file name or an OS message.

The pattern, for every new raise site (a test walks the source and fails on
a plain string):

1. The message is a constant in its package's catalogue, `messages.py`
   (`tingji/engine/messages.py`, `tingji/models/messages.py`, ...):

       NOT_FOUND = Message("audio.not_found", "file not found")
       NO_SECTION = Message("manifest.no_section", "{path}: manifest has no {family!r} section")

   The code is `<area>.<what>` in lower case, unique across catalogues, and
   never changes once released. The text is English, one line, with named
   `{fields}` only (format specs and !r are fine). Reuse a constant where the
   sentence is the same; rewording the text later is fine, the code stays.
2. The raise site names the constant and fills every field by keyword:

       from . import messages
       raise ModelError(messages.NO_SECTION, path=path, family=family)

   A file name, a user's input, an OS or library message (`exc.strerror`)
   is a field: it is shown as it is inside the translated sentence. A field
   may also be another TingjiError, which is then translated too.
3. Run `python3 tools/translations.py`, translate the new entries of the
   "Errors" context in `app/tingji/gui/i18n/tingji_zh_CN.ts` (the code is
   each entry's comment), and run it again to compile the `.qm`. A test
   fails while any message lacks a Chinese translation with the same fields.

Warnings - damaged media read in part, a choice the model cannot honour, a GPU
that fell back to the CPU - are `WarningMessage` constants in the same
catalogues, made into reports by `warning(messages.X, field=...)` instead of
being raised: `Transcript.warnings` and `Engine.warnings` hold those reports,
the CLI prints their English text, the GUI translates them by code.

A new package with errors of its own adds its `messages.py` to
`CATALOGUE_MODULES` below (a test checks that every one is listed); the GUI
translates them all (`tingji.gui.errors.CATALOGUES`) without importing the
packages above it. This module is itself the catalogue of the one message
shared by all packages, `CANCELLED`.
"""

from __future__ import annotations

import json
import os
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

Field = str | int | float | bool | None
"""What a field holds once the error is made: JSON-safe, so that a store can keep it."""

_CODE = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+")


@dataclass(frozen=True)
class Message:
    """One thing that can go wrong: a stable code and its English one-line template."""

    code: str
    text: str

    def __post_init__(self) -> None:
        if not _CODE.fullmatch(self.code):
            raise ValueError(f"message code {self.code!r}: use <area>.<what>, lower case")
        if "\n" in self.text or not self.text.strip():
            raise ValueError(f"message {self.code}: the text must be one non-empty line")
        placeholders(self.text)  # raises for positional or indexed fields

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(name for name, _, _ in placeholders(self.text))


@dataclass(frozen=True)
class WarningMessage(Message):
    """Something that went partly wrong and did not stop the work: made with `warning()`, never raised.

    A warning is kept and shown like an error - code, fields, English text,
    translated in the UI, stored as data - so it lives in the same catalogues.
    """


def placeholders(template: str) -> set[tuple[str, str, str]]:
    """The template's fields as (name, conversion, format spec); ValueError for `{}`, `{0}` or `{a.b}`.

    A translation must use exactly the placeholders of its English source."""
    found = set()
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if not name.isidentifier():
            raise ValueError(f"{template!r}: fields must be named ({{path}}), not {{{name}}}")
        found.add((name, conversion or "", spec or ""))
    return found


def render(template: str, fields: Mapping[str, object]) -> str:
    """The template filled in, on one line (a field may hold a multi-line library message)."""
    return " ".join(template.format(**fields).split())


def first_line(exc: BaseException) -> str:
    """A library exception as a reason field: its first line, or its type when it says nothing.

    Library messages can span lines (tracebacks, tuple reprs); a reason goes
    into a one-line error, so only the part a user can read is kept.
    """
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


# Every catalogue of messages by module name, the registry the GUI and tools/translations.py read: names,
# not imports, so that this module imports no other Tingji module and no package's arrow runs back up.
CATALOGUE_MODULES = (
    "tingji.errors",
    "tingji.engine.messages",
    "tingji.export.messages",
    "tingji.models.messages",
    "tingji.dictation.messages",
    "tingji.cli.messages",
    "tingji.gui.messages",
)


def catalogues() -> tuple[ModuleType, ...]:
    """Every registered catalogue module (`CATALOGUE_MODULES`), imported on first use."""
    import importlib

    return tuple(importlib.import_module(name) for name in CATALOGUE_MODULES)


def catalogue(module: ModuleType) -> list[Message]:
    """The Message constants a catalogue module defines, in source order."""
    return [value for value in vars(module).values() if isinstance(value, Message)]


def _field(value: object) -> Field | TingjiError:
    if isinstance(value, TingjiError) or value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


@dataclass(frozen=True)
class ErrorReport:
    """An error or a warning as data: its English text, and the code and fields that translate it.

    An exception cannot be stored or outlive its session; a report can
    (`to_json`), and a UI translates a stored report exactly like a live one.
    A warning is only ever a report (`warning()`).
    A report without a code (written before codes existed, or not an error of
    ours) is shown as its text.
    """

    text: str  # the English one-liner, without `where`
    code: str | None = None
    fields: Mapping[str, Field | ErrorReport] = field(default_factory=dict)
    where: str | None = None  # the file an AudioError is about, shown as "<where>: <text>"

    @property
    def line(self) -> str:
        return f"{self.where}: {self.text}" if self.where is not None else self.text

    def to_json(self) -> str | None:
        """What a store keeps beside the text (None: nothing to translate by)."""
        return None if self.code is None else json.dumps(self.to_data(), ensure_ascii=False)

    def to_data(self) -> dict[str, Any]:
        """The code and fields (and `where`) as plain JSON data; the English text is not in it."""
        data: dict[str, Any] = {
            "code": self.code,
            "fields": {
                k: v.to_data() | {"text": v.text} if isinstance(v, ErrorReport) else v for k, v in self.fields.items()
            },
        }
        if self.where is not None:
            data["where"] = self.where
        return data

    @classmethod
    def from_json(cls, text: str, data: str | None) -> ErrorReport:
        """The report a store kept; anything unreadable is just the text."""
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            return cls(text)
        return cls.from_data(text, parsed)

    @classmethod
    def from_data(cls, text: str, data: Any) -> ErrorReport:
        """The report `to_data` gave, with its English `text`; anything unreadable is just the text."""
        try:
            return cls._from_data(text, data) if data else cls(text)
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls(text)

    @classmethod
    def _from_data(cls, text: str, data: dict[str, Any]) -> ErrorReport:
        code, raw = data["code"], data["fields"]
        if not isinstance(code, str) or not isinstance(raw, dict):
            raise TypeError("not a stored error report")
        fields = {str(k): cls._from_data(str(v["text"]), v) if isinstance(v, dict) else v for k, v in raw.items()}
        where = data.get("where")
        return cls(text, code, fields, None if where is None else str(where))


def _checked(message: Message, fields: Mapping[str, object]) -> dict[str, Field | TingjiError]:
    """The fields of a message being made: exactly its placeholders, as values a store can keep."""
    if set(fields) != message.fields:
        raise TypeError(f"{message.code} needs the fields {sorted(message.fields)}, got {sorted(fields)}")
    return {k: _field(v) for k, v in fields.items()}


def _report(message: Message, fields: Mapping[str, Field | TingjiError]) -> ErrorReport:
    reports = {k: v.report() if isinstance(v, TingjiError) else v for k, v in fields.items()}
    english = {k: v.line if isinstance(v, ErrorReport) else v for k, v in reports.items()}
    return ErrorReport(render(message.text, english), message.code, reports)


def warning(message: WarningMessage, /, **fields: object) -> ErrorReport:
    """A warning as data (what `Transcript.warnings` and `Engine.warnings` hold): its English line, code and fields.

    The fields are checked as an error's are; a field may be a TingjiError (a reason
    of our own), kept as its report and translated with the warning.
    """
    if not isinstance(message, WarningMessage):
        raise TypeError(f"warning() takes a WarningMessage constant from a catalogue, not {message!r}")
    return _report(message, _checked(message, fields))


def reports_to_json(reports: Sequence[ErrorReport]) -> str:
    """Several reports (a queue row's warnings) as a store keeps them: each one's English text, code and fields."""
    return json.dumps([{"text": r.text, **r.to_data()} for r in reports], ensure_ascii=False)


def reports_from_json(data: str | None) -> list[ErrorReport] | None:
    """The reports `reports_to_json` kept; None when `data` holds none (a row from before they were kept)."""
    try:
        stored = json.loads(data) if data else None
    except ValueError:
        return None
    if not isinstance(stored, list):
        return None
    return [
        ErrorReport.from_data(str(r.get("text", "")), r) if isinstance(r, dict) else ErrorReport(str(r)) for r in stored
    ]


class TingjiError(Exception):
    """Base class: a message for the user, on one line, with a code (see the module's docstring).

    raise TingjiError(messages.UNKNOWN_FORMAT, format=fmt, choices="txt, srt")
    """

    def __init__(self, message: Message, /, **fields: object) -> None:
        if not isinstance(message, Message) or isinstance(message, WarningMessage):
            raise TypeError(f"{type(self).__name__} takes a Message constant from a catalogue, not {message!r}")
        self.message = message
        self.fields: dict[str, Field | TingjiError] = _checked(message, fields)
        super().__init__(self.report().line)

    @property
    def code(self) -> str:
        return self.message.code

    def report(self) -> ErrorReport:
        return _report(self.message, self.fields)


class AudioError(TingjiError):
    """A media file could not be read as audio. Names the file and the problem.

    Its messages describe the problem only ("file is empty"): `path` is
    shown in front of it, and a list that already names the file (the GUI's
    queue) shows `problem` alone.
    """

    def __init__(self, message: Message, /, path: str | os.PathLike[str] | None = None, **fields: object) -> None:
        self.path = None if path is None else os.fspath(path)
        super().__init__(message, **fields)
        self.problem = super().report().text

    def report(self) -> ErrorReport:
        report = super().report()
        return ErrorReport(report.text, report.code, report.fields, self.path if self.path is not None else "audio")


class ModelError(TingjiError):
    """A model folder is missing, incomplete, corrupt or of an unknown kind."""


CANCELLED = Message("tingji.cancelled", "cancelled")


class Cancelled(TingjiError):
    """The caller asked to stop; work finished before the request is kept.

    `partial` carries whatever was finished (a Transcript, when raised by
    Engine.transcribe), so a cancelled long file still yields its first part.
    """

    def __init__(self, message: Message = CANCELLED, /, *, partial: object | None = None, **fields: object) -> None:
        super().__init__(message, **fields)
        self.partial = partial
