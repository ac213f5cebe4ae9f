"""Segment timing: sentences of the LLM's text placed in time.

The LLM writes text but says nothing about when. Fun-ASR-Nano's CTC head
does: its greedy path emits tokens on 60 ms frames. The LLM text and the CTC
text are two transcriptions of the same audio, so their characters are
matched (after dropping punctuation and case) and each LLM character takes
the time of the CTC character it matches; the rest are interpolated. A model
without a CTC head gets window-level timing: the window's speech span shared
among sentences in proportion to their length; or, where the family asks for
it (Capabilities.timestamps "speech"), the characters spread over the speech
spans the VAD found in the window - pauses take no text, so a sentence starts
and ends in speech - with no segment longer than `MAX_SEGMENT_S`.
"""

from __future__ import annotations

import base64
import difflib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# Sentence ends: CJK full stops always; Latin ones when followed by space/end
# (so 3.5 and e.g. stay whole).
_SENTENCE_END = re.compile(r"[。！？；…]+[」』”’）)]*|[.!?;]+[\"')\]]*(?=\s|$)")
MAX_SEGMENT_CHARS = 80  # longer sentences are split at commas for readable subtitles
MAX_SEGMENT_S = 15.0  # with speech-span timing, longer sentences are split too
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


def speech_char_times(text: str, spans: Sequence[tuple[float, float]]) -> list[TimedChar]:
    """The speaking characters of `text` spread evenly over the speech spans, pauses skipped.

    For a model that cannot time its characters: in a window of several
    utterances each span gets text in proportion to its length, which puts
    sentence boundaries in or near the right span instead of drifting over
    the pauses.
    """
    chars = [ch for ch in text if _norm(ch)]
    total = sum(max(0.0, e - s) for s, e in spans)
    if not chars or total <= 0:
        return []
    step = total / len(chars)
    return [
        TimedChar(ch, _on_speech(spans, i * step, True), _on_speech(spans, (i + 1) * step, False))
        for i, ch in enumerate(chars)
    ]


def _on_speech(spans: Sequence[tuple[float, float]], offset: float, start: bool) -> float:
    """The window time `offset` seconds into the speech; a start on a span's end moves to the next span."""
    for s, e in spans:
        length = max(0.0, e - s)
        if offset < length or (not start and offset <= length):
            return s + offset
        offset -= length
    return spans[-1][1]


def _split_by_time(text: str, a: int, b: int, times: list[tuple[float, float]], max_s: float) -> list[tuple[int, int]]:
    """Cut the character range [a, b) so no piece lasts more than `max_s`: at a comma or space if one
    falls in the last two thirds of the allowed span, else between characters."""
    out = []
    while times[b - 1][1] - times[a][0] > max_s:
        fits = a + 1
        while fits < b and times[fits][1] - times[a][0] <= max_s:
            fits += 1
        cut = fits
        floor = a + (fits - a) // 3
        for m in _COMMA.finditer(text, floor, fits):
            cut = m.end()
        if cut == fits:
            space = text.rfind(" ", floor, fits)
            cut = space + 1 if space > floor else fits
        if not text[a:cut].strip():
            break
        out.append((a, cut))
        a = cut
    out.append((a, b))
    return out


WordTimes = list[tuple[float, float, str]]  # (start, end, text) per word, seconds relative to the window


def timed_sentences(
    text: str, span: tuple[float, float], ctc: Sequence[TimedChar] | None, max_s: float | None = None
) -> list[tuple[float, float, str]]:
    """Sentences of `text` with (start, end) seconds relative to the window; with `max_s`, timed
    pieces longer than that are split (by their character times)."""
    return [(a, b, piece) for a, b, piece, _ in timed_pieces(text, span, ctc, max_s)]


def timed_pieces(
    text: str,
    span: tuple[float, float],
    ctc: Sequence[TimedChar] | None,
    max_s: float | None = None,
    words: bool = False,
) -> list[tuple[float, float, str, WordTimes | None]]:
    """`timed_sentences` with, when `words` and `ctc` are given, each sentence's timed words
    (`sentence_words`); None in their place otherwise."""
    text = text.strip()
    if not text:
        return []
    ranges = split_sentences(text)
    if ctc:
        times = char_times(text, ctc, span)
        if max_s is not None:
            ranges = [piece for a, b in ranges for piece in _split_by_time(text, a, b, times, max_s)]
        out = []
        for a, b in ranges:
            if not text[a:b].strip():
                continue
            piece = text[a:b]
            # Timed by the first and last characters that are spoken: a closing mark has no time of its
            # own (it is interpolated towards the next sentence's first word).
            spoken = [i for i, ch in enumerate(piece) if _norm(ch)]
            lead = spoken[0] if spoken else len(piece) - len(piece.lstrip())
            last = spoken[-1] if spoken else len(piece.rstrip()) - 1
            timed = sentence_words(piece, times[a:b]) if words else None
            out.append((times[a + lead][0], times[a + last][1], piece.strip(), timed))
        return out
    # Window-level: share the speech span by sentence length.
    total = sum(b - a for a, b in ranges)
    out, t = [], span[0]
    for a, b in ranges:
        d = (span[1] - span[0]) * (b - a) / total
        out.append((t, t + d, text[a:b].strip(), None))
        t += d
    return out


def _ideograph(ch: str) -> bool:
    """A character that is a word of its own: CJK ideographs, kana, hangul (not their punctuation)."""
    return ("\u2e80" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff") and bool(_norm(ch))


def sentence_words(piece: str, times: Sequence[tuple[float, float]]) -> WordTimes:
    """The words of a sentence with their times: runs of letters and digits between spaces, each
    ideograph alone; punctuation goes with the word before it (the first word takes leading marks).

    Args:
        piece: The sentence's text.
        times: (start, end) of each of its characters (`char_times`).
    """
    spans: list[list[int]] = []  # [first char, end char] of each word
    open_word = False
    for i, ch in enumerate(piece):
        if ch.isspace():
            open_word = False
        elif not _norm(ch):  # a mark: part of the word it follows
            if spans:
                spans[-1][1] = i + 1
            else:
                spans.append([i, i + 1])
                open_word = True
        elif _ideograph(ch):
            if spans and open_word and not any(_norm(c) for c in piece[spans[-1][0] : spans[-1][1]]):
                spans[-1][1] = i + 1  # leading marks join the first word
            else:
                spans.append([i, i + 1])
            open_word = False
        elif open_word and spans and not _ideograph(piece[spans[-1][1] - 1]):
            spans[-1][1] = i + 1
        else:
            spans.append([i, i + 1])
            open_word = True
    out: WordTimes = []
    for a, b in spans:
        spoken = [i for i in range(a, b) if _norm(piece[i])]
        if not spoken:  # marks alone (a sentence of none but marks): no time of their own
            continue
        out.append((times[spoken[0]][0], times[spoken[-1]][1], piece[a:b]))
    return out
