"""SenseVoice-Small (FunAudioLLM/SenseVoiceSmall): one encoder pass and a CTC head, no LLM.

One window: Kaldi fbank + LFR + CMVN features -> the `encoder` graph (query
rows + SAN-M encoder + CTC head; the best token per row out) -> the best path over
the four query positions and the frames, repeats collapsed and blanks
dropped, as the reference decodes it -> tags from the query positions
(language, emotion, event), text from every other piece, character times
from the frames that emitted them (60 ms each).

There is no per-lane state (`base.GraphsOnly`): a dictation take never
waits for a file's window.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import messages
from ...align import TimedChar, ctc_greedy
from ...frontend import FrontendConfig, features
from ...manifest import Manifest
from ...options import LoadOptions, TranscribeOptions
from ...sessions import GraphSpec, OnnxGraphs
from ..base import CancelCheck, Capabilities, GraphsOnly, WindowResult, manifest_cmvn, stage
from ..kit import declared
from .rich import N_QUERIES, classify, languages, query_ids, read_tags
from .section import SenseVoiceSection
from .tokens import BYTE, NORMAL, SPACE, UNUSED, USER_DEFINED, PieceTable, load_pieces

FAMILY = declared(__name__).name  # the name in engine/families/kit.py
FILE_ROLES = ("encoder", "encoder_fixed", "encoder_data", "cmvn", "tokens")
REQUIRED_FILES = ("encoder", "cmvn", "tokens")
FRONTEND = FrontendConfig
SECTION = SenseVoiceSection
SHORT_BUCKET_FRAMES = 167  # fixed policy: a 10 s bucket for dictation beside the full window


class SenseVoiceSmall(GraphsOnly):
    """A loaded SenseVoice-Small model (see `engine.families.base.Recognizer`)."""

    family = FAMILY
    stages = ("features", "encode", "decode")

    def __init__(self, manifest: Manifest, options: LoadOptions) -> None:
        section: SenseVoiceSection = manifest.section
        self.frontend: FrontendConfig = manifest.frontend
        self.cmvn = manifest_cmvn(manifest, messages.CMVN_UNREADABLE)
        self.pieces = load_pieces(manifest.file("tokens"))
        self.kinds = [classify(p) if t != BYTE else None for p, t in zip(self.pieces.pieces, self.pieces.types)]
        self.char_bytes = _char_bytes(self.pieces, self.kinds)
        self.blank = section.ctc.blank_id
        self.frame_s = section.ctc.frame_seconds
        self.rows = section.queries
        spec = GraphSpec("encoder", fixed_role="encoder_fixed")
        self.graphs = OnnxGraphs(manifest, [spec], options, short_bucket=SHORT_BUCKET_FRAMES, warm=self._warm_up)
        self.capabilities = Capabilities(
            languages=languages(self.rows),
            detects_language=True,
            hotwords=False,
            itn=True,
            timestamps="tokens",
            live_lane=True,
            tags=("emotion", "event"),
        )

    def _warm_up(self, graphs: OnnxGraphs) -> None:
        """One run per session, so kernel compilation happens at load, not on the user's first window."""
        feats = np.zeros((8, self.frontend.feature_dim), np.float32)
        for bucket in graphs.buckets if graphs.policy == "fixed" else (None,):
            graphs.run(
                "encoder",
                {"speech": feats},
                8,
                other={"query": query_ids(self.rows, None, True)},
                bucket=bucket,
                record=False,
            )

    def warm(self, lane: Any) -> None:
        """One short window through everything (features, graph, decoding), so the first dictation
        take pays no first-call costs (the sessions themselves were warmed when they were made)."""
        self.recognize(np.zeros(self.frontend.sample_rate, np.float32), TranscribeOptions(), lane)

    def recognize(
        self, samples: np.ndarray, options: TranscribeOptions, lane: Any, cancel: CancelCheck | None = None
    ) -> WindowResult:
        timings = dict.fromkeys(self.stages, 0.0)
        with stage(timings, "features"):
            feats = features(samples, self.frontend, self.cmvn)
        frames = feats.shape[0]
        if frames == 0:  # shorter than one 25 ms frame
            return WindowResult("", language=options.language, timings=timings)
        with stage(timings, "encode"):
            query = query_ids(self.rows, options.language, options.itn)
            _, query_best, _, frame_best = self.graphs.run("encoder", {"speech": feats}, frames, other={"query": query})
        with stage(timings, "decode"):
            result = self.decode(np.concatenate([query_best[0, :, 0], frame_best[0, :frames, 0]]).astype(np.int64))
        result.language = result.language or options.language
        result.timings = timings
        return result

    def decode(self, path: np.ndarray) -> WindowResult:
        """The reference's greedy CTC decoding of a best path over [4 query rows + frames]."""
        keep = np.ones(len(path), bool)
        keep[1:] = path[1:] != path[:-1]
        keep &= path != self.blank
        emitted = np.flatnonzero(keep)
        tokens = path[emitted].tolist()
        surfaces = self.pieces.surfaces(tokens)
        tags = read_tags(
            [
                self.kinds[tok]
                for tok, frame in zip(tokens, emitted)
                if frame < N_QUERIES and self.kinds[tok] is not None
            ]
        )
        text = "".join(s for s, tok in zip(surfaces, tokens) if self.kinds[tok] is None).strip()
        return WindowResult(text, tokens, self._char_times(path), language=tags.language, extras=tags.extras)

    def _char_times(self, path: np.ndarray) -> list[TimedChar]:
        """Characters of the text with the times of the frames that emitted them (query rows excluded)."""
        shift = N_QUERIES * self.frame_s
        chars = ctc_greedy(path, self.blank, self.char_bytes, self.frame_s)
        return [TimedChar(c.char, max(0.0, c.start - shift), max(0.0, c.end - shift)) for c in chars]


def _char_bytes(pieces: PieceTable, kinds: list) -> list[bytes]:
    """Per id, the UTF-8 bytes it adds to the text for timing (tags and control pieces add none)."""
    out = []
    for token, (piece, kind, tag) in enumerate(zip(pieces.pieces, pieces.types, kinds)):
        if kind == BYTE:
            out.append(bytes([pieces.byte_value(token)]))
        elif tag is not None or kind not in (NORMAL, USER_DEFINED, UNUSED):
            out.append(b"")
        else:
            out.append(piece.replace(SPACE, " ").encode("utf-8"))
    return out


def load(manifest: Manifest, options: LoadOptions) -> SenseVoiceSmall:
    return SenseVoiceSmall(manifest, options)
