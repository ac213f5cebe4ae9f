"""Speech spans -> windows -> speaker turns -> a speaker per segment, as FunASR's pipeline does.

* `windows(spans)`: each speech span is cut into 1.5 s windows every 0.75 s;
  the last window of a span ends at the span's end (it starts earlier, over
  the one before), and a span shorter than a window is one window, its audio
  zero-padded to the full length (funasr's `sv_chunk`).
* `turns(windows, labels)`: windows relabelled in order of first appearance,
  neighbours of one speaker that touch merged, the overlap of two speakers'
  windows split at its middle, turns shorter than 0.7 s given to the nearer
  neighbour, and merged again (funasr's `postprocess` and `smooth`).
* `speaker_of(start, end, turns)`: the speaker a segment is labelled with -
  the one whose turns cover most of it (talk over another speaker stays with
  the dominant one); a segment no turn covers takes the nearest turn's.
* `split_at_turns(segments, turns)`: a segment with timed words gets a
  speaker per word (`speaker_of` the word) and is cut where the speaker
  changes, each part one speaker's words; one without keeps one speaker.

`speaker_turns(model, samples, spans, count)` runs the whole chain on a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace as copy_with
from typing import TYPE_CHECKING

import numpy as np

from ..transcript import Segment, join_texts
from .cluster import cluster

if TYPE_CHECKING:
    from .model import SpeakerModel

MIN_TURN_SECONDS = 0.7  # funasr's smooth(): shorter turns join a neighbour
_TOUCH = 1e-4  # seconds: windows closer than this are not an overlap


@dataclass(frozen=True)
class Window:
    """One embedding window: seconds in the file, and its samples (a span's start) to embed."""

    start: float
    end: float
    first: int  # first sample in the file
    length: int  # samples of real audio (the rest of the window is zero padding)


@dataclass
class Turn:
    """A stretch of the file given to one speaker (seconds; speaker numbers from 0 in order of appearance)."""

    start: float
    end: float
    speaker: int


def windows(
    spans: Sequence[tuple[int, int]], *, rate: int = 16000, window_s: float = 1.5, shift_s: float = 0.75
) -> list[Window]:
    """The embedding windows of speech spans given as (first sample, end sample) in the file."""
    size, shift = int(window_s * rate), int(shift_s * rate)
    out: list[Window] = []
    for first, end in spans:
        n = end - first
        last_end = 0
        for start in range(0, n, shift):
            stop = min(start + size, n)
            if stop <= last_end:
                break
            last_end = stop
            start = max(0, stop - size)
            out.append(
                Window(
                    start=(first + start) / rate, end=(first + stop) / rate, first=first + start, length=stop - start
                )
            )
    return out


def window_audio(samples: np.ndarray, window: Window, size: int, offset: int = 0) -> np.ndarray:
    """The window's samples from `samples` (which start at sample `offset` of the file), zero-padded to `size`."""
    clip = np.zeros(size, np.float32)
    a = window.first - offset
    clip[: window.length] = samples[a : a + window.length]
    return clip


def relabel(labels: Sequence[int]) -> list[int]:
    """Cluster labels renumbered in order of first appearance, as the turns' speakers are."""
    seen: dict[int, int] = {}
    return [seen.setdefault(int(x), len(seen)) for x in labels]


def _merge(turns: list[Turn]) -> list[Turn]:
    """Consecutive turns of one speaker that touch or overlap become one."""
    out = [Turn(turns[0].start, turns[0].end, turns[0].speaker)]
    for t in turns[1:]:
        if t.speaker != out[-1].speaker or t.start > out[-1].end:
            out.append(Turn(t.start, t.end, t.speaker))
        else:
            out[-1].end = t.end
    return out


def turns(wins: Sequence[Window], labels: Sequence[int], min_turn: float = MIN_TURN_SECONDS) -> list[Turn]:
    """Speaker turns from the windows (in time order) and their cluster labels."""
    if not wins:
        return []
    res = _merge([Turn(w.start, w.end, s) for w, s in zip(wins, relabel(labels))])
    for a, b in zip(res, res[1:]):
        if a.end > b.start + _TOUCH:  # two speakers' windows overlap: split at the middle
            a.end = b.start = (a.end + b.start) / 2
    if len(res) < 2:
        return res
    for i, t in enumerate(res):
        t.start, t.end = round(t.start, 2), round(t.end, 2)
        if t.end - t.start < min_turn:
            if i == 0:
                t.speaker = res[1].speaker
            elif i == len(res) - 1:
                t.speaker = res[i - 1].speaker
            elif t.start - res[i - 1].end <= res[i + 1].start - t.end:
                t.speaker = res[i - 1].speaker
            else:
                t.speaker = res[i + 1].speaker
    return _merge(res)


def speaker_of(start: float, end: float, turn_list: Sequence[Turn]) -> int | None:
    """The speaker whose turns overlap [start, end] most; else the nearest turn's; None without turns."""
    if not turn_list:
        return None
    cover: dict[int, float] = {}
    for t in turn_list:
        overlap = min(end, t.end) - max(start, t.start)
        if overlap > 0:
            cover[t.speaker] = cover.get(t.speaker, 0.0) + overlap
    if cover:
        return max(cover, key=lambda s: (cover[s], -s))
    nearest = min(turn_list, key=lambda t: max(t.start - end, start - t.end))
    return nearest.speaker


def split_at_turns(segments: Sequence[Segment], turn_list: Sequence[Turn]) -> list[Segment]:
    """The segments labelled with the turns' speakers, those with words cut where the speaker changes.

    A part's text is its words' text (joined as `transcript.join_texts` joins: no space
    between CJK characters); its times are its first word's start and last word's end.
    """
    out: list[Segment] = []
    for seg in segments:
        if not seg.words:
            out.append(copy_with(seg, speaker=speaker_of(seg.start, seg.end, turn_list)))
            continue
        words = [copy_with(w, speaker=speaker_of(w.start, w.end, turn_list)) for w in seg.words]
        runs: list[list] = [[words[0]]]
        for w in words[1:]:
            if w.speaker == runs[-1][-1].speaker:
                runs[-1].append(w)
            else:
                runs.append([w])
        if len(runs) == 1:
            out.append(copy_with(seg, speaker=words[0].speaker, words=words))
            continue
        # The parts meet where the later speaker's turn starts, kept between the two words: the cue
        # of a part lasts until the next begins, as the sentence's did.
        cuts = [seg.start]
        for before, after in zip(runs, runs[1:]):
            lo, hi = before[-1].end, max(before[-1].end, after[0].start)
            turn = next((t for t in turn_list if t.speaker == after[0].speaker and t.start <= hi), None)
            starts = [t.start for t in turn_list if t.speaker == after[0].speaker and t.start <= hi]
            cuts.append(min(hi, max(lo, max(starts))) if turn is not None else (lo + hi) / 2)
        cuts.append(seg.end)
        for run, start, end in zip(runs, cuts, cuts[1:]):
            text = join_texts([w.text for w in run])
            out.append(Segment(start, max(start, end), text, seg.window, run[0].speaker, run))
    return out


def speaker_turns(
    model: SpeakerModel, samples: np.ndarray, spans: Sequence[tuple[int, int]], count: int | None = None
) -> list[Turn]:
    """Who spoke when in `samples` (16 kHz mono, the whole file), from its speech spans (first, end sample).

    Args:
        model: a loaded speaker model.
        samples: the file's audio.
        spans: where there is speech (the VAD's spans), in time order.
        count: the number of speakers when known; None: found from the audio.
    """
    wins = windows(spans, rate=model.frontend.sample_rate, window_s=model.window_seconds, shift_s=model.shift_seconds)
    if not wins:
        return []
    size = model.window_samples
    embeddings = model.embed([window_audio(samples, w, size) for w in wins])
    return turns(wins, cluster(embeddings, count))
