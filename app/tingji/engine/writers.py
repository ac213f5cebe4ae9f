"""Transcript files: TXT, SRT, VTT, JSON.

Files are written to a temporary name, flushed to disk and renamed
(`tingji.atomic`), so a crash, a power cut or a full disk never leaves a
half-written transcript under the final name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import atomic
from ..errors import TingjiError
from . import messages

if TYPE_CHECKING:
    from .transcript import Segment, Transcript

FORMATS = ("txt", "srt", "vtt", "json")


def _clock(seconds: float, sep: str) -> str:
    ms = int(round(max(0.0, seconds) * 1000))
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{ms:03d}"


def _said(t: Transcript, seg: Segment) -> str:
    """The segment's text, after its speaker's name (`Name: text`) where speakers were labelled."""
    name = t.speaker_name(seg)
    return seg.text.strip() if name is None else f"{name}: {seg.text.strip()}"


def to_txt(t: Transcript) -> str:
    return "".join(_said(t, seg) + "\n" for seg in t.segments if seg.text.strip())


def to_srt(t: Transcript) -> str:
    cues = [s for s in t.segments if s.text.strip()]
    return "\n".join(
        f"{i}\n{_clock(s.start, ',')} --> {_clock(max(s.end, s.start + 0.001), ',')}\n{_said(t, s)}\n"
        for i, s in enumerate(cues, 1)
    )


def _vtt_text(t: Transcript, seg: Segment) -> str:
    """The cue's text; with a speaker, in a voice span `<v Name>` (its name escaped as WebVTT needs)."""
    name = t.speaker_name(seg)
    if name is None:
        return seg.text.strip()
    name = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"<v {name}>{seg.text.strip()}"


def to_vtt(t: Transcript) -> str:
    cues = [s for s in t.segments if s.text.strip()]
    body = "\n".join(
        f"{_clock(s.start, '.')} --> {_clock(max(s.end, s.start + 0.001), '.')}\n{_vtt_text(t, s)}\n" for s in cues
    )
    return "WEBVTT\n\n" + body


def to_json(t: Transcript) -> str:
    return json.dumps(t.to_dict(), ensure_ascii=False, indent=2) + "\n"


RENDERERS: dict[str, Callable[[Transcript], str]] = {"txt": to_txt, "srt": to_srt, "vtt": to_vtt, "json": to_json}


def render(t: Transcript, fmt: str) -> str:
    try:
        return RENDERERS[fmt](t)
    except KeyError:
        raise TingjiError(messages.UNKNOWN_FORMAT, format=fmt, choices=", ".join(FORMATS)) from None


def write(t: Transcript, path: str | os.PathLike[str], fmt: str | None = None) -> Path:
    """Write one format atomically; the format defaults to the file's extension."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    text = render(t, fmt)
    try:
        return atomic.write_text(path, text)
    except OSError as exc:
        raise TingjiError(messages.CANNOT_WRITE, path=path, reason=exc.strerror or str(exc)) from None


def parse_formats(spec: str) -> list[str]:
    formats = [f.strip().lower().lstrip(".") for f in spec.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise TingjiError(messages.UNKNOWN_FORMATS, formats=", ".join(bad) or spec, choices=", ".join(FORMATS))
    return list(dict.fromkeys(formats))
