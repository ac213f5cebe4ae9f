"""Segment timing: sentences of the LLM's text placed in time.

The LLM writes text but says nothing about when. Fun-ASR-Nano's CTC head
does: its greedy path emits tokens on 60 ms frames. The LLM text and the CTC
text are two transcriptions of the same audio, so their characters are
matched (after dropping punctuation and case) and each LLM character takes
the time of the CTC character it matches; the rest are interpolated. A model
without a CTC head gets window-level timing: the window's speech span shared
among sentences in proportion to their length.
"""

from __future__ import annotations

import base64
import difflib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

# Sentence ends: CJK full stops always; Latin ones when followed by space/end
# (so 3.5 and e.g. stay whole).
_SENTENCE_END = re.compile(r"[。！？；…]+[」』”’）)]*|[.!?;]+[\"')\]]*(?=\s|$)")
MAX_SEGMENT_CHARS = 80  # longer sentences are split at commas for readable subtitles
_COMMA = re.compile(r"[，,、：:]")


@dataclass(frozen=True)
class TimedChar:
    char: str
    start: float  # seconds from the window start
    end: float


def load_ctc_tokens(path: str | Path) -> list[bytes]:
    """tokens.txt: `base64(bytes) id` per line -> bytes by id."""
    table: dict[int, bytes] = {}
    for line in Path(path).read_text(encoding="ascii").splitlines():
        parts = line.split()
        if len(parts) == 2:
            table[int(parts[1])] = base64.b64decode(parts[0])
        elif len(parts) == 1:
            table[int(parts[0])] = b""
    size = max(table) + 1 if table else 0
    return [table.get(i, b"") for i in range(size)]


def ctc_greedy(ids: np.ndarray, blank: int, tokens: Sequence[bytes], frame_s: float) -> list[TimedChar]:
    """Best path: collapse repeats, drop blanks; characters with the frames that emitted them."""
    best = ids[:, 0] if ids.ndim == 2 else ids
    chars: list[TimedChar] = []
    pending = b""
    pending_start = 0.0
    prev = -1
    for t, token in enumerate(best.tolist()):
        if token != prev and token != blank:
            piece = tokens[token] if 0 <= token < len(tokens) else b""
            if piece:
                if not pending:
                    pending_start = t * frame_s
                pending += piece
                text = pending.decode("utf-8", "ignore")
                if text and len(text.encode("utf-8")) == len(pending):
                    # Complete characters: spread the token's span over them.
                    step = max(frame_s, t * frame_s + frame_s - pending_start) / len(text)
                    for k, ch in enumerate(text):
                        chars.append(TimedChar(ch, pending_start + k * step, pending_start + (k + 1) * step))
                    pending = b""
        prev = token
    return chars


def _norm(ch: str) -> str:
    """Characters that carry speech: letters and digits, lower-cased."""
    ch = unicodedata.normalize("NFKC", ch).lower()
    return ch if ch.isalnum() else ""


def char_times(text: str, ctc: Sequence[TimedChar], span: tuple[float, float]) -> list[tuple[float, float]]:
    """A (start, end) for every character of `text`, from matching CTC characters."""
    n = len(text)
    if n == 0:
        return []
    keep = [i for i, ch in enumerate(text) if _norm(ch)]
    a = "".join(_norm(text[i]) for i in keep)
    b = "".join(_norm(c.char) for c in ctc)
    b_index = [j for j, c in enumerate(ctc) if _norm(c.char)]
    starts = np.full(n, np.nan)
    ends = np.full(n, np.nan)
    if a and b:
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for block in matcher.get_matching_blocks():
            for k in range(block.size):
                i, j = keep[block.a + k], b_index[block.b + k]
                starts[i], ends[i] = ctc[j].start, ctc[j].end
    # Anchor the ends, then interpolate characters that matched nothing.
    if np.isnan(starts[0]):
        starts[0] = ends[0] = span[0]
    if np.isnan(starts[-1]):
        starts[-1] = ends[-1] = span[1]
    idx = np.arange(n)
    known = ~np.isnan(starts)
    starts = np.interp(idx, idx[known], starts[known])
    ends = np.interp(idx, idx[known], np.where(np.isnan(ends), starts, ends)[known])
    starts = np.maximum.accumulate(np.clip(starts, span[0], span[1]))
    ends = np.maximum(np.maximum.accumulate(np.clip(ends, span[0], span[1])), starts)
    return list(zip(starts.tolist(), ends.tolist()))


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character ranges of sentences (long ones split at commas)."""
    ranges, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        ranges.append((start, m.end()))
        start = m.end()
    if start < len(text):
        ranges.append((start, len(text)))
    out = []
    for a, b in ranges:
        while b - a > MAX_SEGMENT_CHARS:
            cut = None
            for m in _COMMA.finditer(text, a + MAX_SEGMENT_CHARS // 3, a + MAX_SEGMENT_CHARS):
                cut = m.end()
            if cut is None:
                space = text.rfind(" ", a + MAX_SEGMENT_CHARS // 3, a + MAX_SEGMENT_CHARS)
                cut = space + 1 if space > a else a + MAX_SEGMENT_CHARS
            out.append((a, cut))
            a = cut
        out.append((a, b))
    return [(a, b) for a, b in out if text[a:b].strip()]


def timed_sentences(text: str, span: tuple[float, float], ctc: Sequence[TimedChar] | None
                    ) -> list[tuple[float, float, str]]:
    """Sentences of `text` with (start, end) seconds relative to the window."""
    text = text.strip()
    if not text:
        return []
    ranges = split_sentences(text)
    if ctc:
        times = char_times(text, ctc, span)
        out = []
        for a, b in ranges:
            piece = text[a:b]
            lead = len(piece) - len(piece.lstrip())
            trail = len(piece.rstrip())
            out.append((times[a + lead][0], times[a + trail - 1][1], piece.strip()))
        return out
    # Window-level: share the speech span by sentence length.
    total = sum(b - a for a, b in ranges)
    out, t = [], span[0]
    for a, b in ranges:
        d = (span[1] - span[0]) * (b - a) / total
        out.append((t, t + d, text[a:b].strip()))
        t += d
    return out
