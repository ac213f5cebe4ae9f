"""SenseVoice-Small's sizes, without torch (`modules` builds the graph from them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..sanm_dims import SanmDims


@dataclass(frozen=True)
class SenseVoiceDims(SanmDims):
    """The encoder's sizes plus the vocabulary and the query table (read from the checkpoint)."""

    vocab: int = 25055
    query_rows: int = 16  # 7 + len(lid_dict) + len(textnorm_dict) in the reference
