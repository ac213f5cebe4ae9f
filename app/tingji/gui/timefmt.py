"""How times read in the queue and the transcript (shared so they always agree)."""

from __future__ import annotations


def clock(seconds: float | None, *, tenths: bool = False) -> str:
    """0:07, 12:34, 1:02:03 (media-player style); with tenths: 0:07.4."""
    if seconds is None or seconds < 0:
        return "–"
    if tenths:
        total10 = int(round(seconds * 10))
        whole, tenth = divmod(total10, 10)
    else:
        whole, tenth = int(round(seconds)), 0
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    out = f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
    return f"{out}.{tenth}" if tenths else out
