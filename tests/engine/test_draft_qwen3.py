"""Qwen3-ASR drafted by another installed model (engine/draft_sources.py): the same tokens, drafted.

Qwen3-ASR has no CTC head; SenseVoice-Small (or Fun-ASR-Nano's CTC head) hears
the same window and its text, re-tokenised with Qwen3's tokenizer, is the draft
the LLM verifies in blocks. On tiny random checkpoints the drafts are mostly
wrong, which is the hard case for the verifier: the output must still be the
plain greedy tokens. Languages are respected: a source that does not declare the
window's language is not used. Figures are printed (`-s`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tingji.engine.draft_sources import DRAFTERS, Heard, load_source, use_draft_model, window_draft
from tingji.engine.options import TranscribeOptions
from tingji.errors import ModelError


@pytest.fixture(scope="module")
def q3_drafted(q3_model: Path, sv_model: Path):
    """The tiny Qwen3-ASR on the CPU in reference mode, with the tiny SenseVoice as its draft source."""
    from tingji.engine.transcribe import Engine

    engine = Engine(q3_model, "cpu", exact=True)
    use_draft_model(engine, sv_model)
    yield engine
    engine.close()


def _run(engine, speech: np.ndarray, **choices) -> tuple[list[list[int]], dict[str, float]]:
    t = engine.transcribe(speech, TranscribeOptions(**choices))
    return t.window_tokens, t.timings


@pytest.mark.parametrize("language", ["en", None])
def test_sense_voice_drafts_and_qwen3_says_its_own_greedy_tokens(q3_drafted, speech_en, language) -> None:
    drafted, timings = _run(q3_drafted, speech_en, language=language)
    plain, plain_timings = _run(q3_drafted, speech_en, language=language, draft=False)
    print(
        f"language {language or 'detected'}: {sum(map(len, plain))} tokens; drafted {timings['draft_tokens']:.0f}, "
        f"accepted {timings['draft_accepted']:.0f}; draft source {timings.get('draft', 0.0) * 1000:.0f} ms"
    )
    assert drafted == plain  # the LLM's own greedy tokens, whatever the draft said
    assert plain_timings["draft_tokens"] == 0 and "draft" not in plain_timings  # --no-draft: the source never runs
    assert "draft" in timings and 0 <= timings["draft_accepted"] <= timings["draft_tokens"]  # the source ran


def test_a_source_that_agrees_is_drafted_and_accepted_in_blocks(q3_drafted, speech_en) -> None:
    """A source that hears what Qwen3 says (its plain text): the verifier takes long blocks, the tokens unchanged."""
    recognizer = q3_drafted.recognizer
    plain, _ = _run(q3_drafted, speech_en, language="en", draft=False)
    said = recognizer.llm.detokenize([t for t in plain[0] if t not in recognizer.stop_ids])
    sense_voice = recognizer.draft_source
    recognizer.draft_source = _Fixed(Heard(said, "en"))  # set, not `use_draft_source`: SenseVoice stays open
    try:
        drafted, timings = _run(q3_drafted, speech_en, language="en")
    finally:
        recognizer.draft_source = sense_voice
    print(f"{len(plain[0])} tokens: drafted {timings['draft_tokens']:.0f}, accepted {timings['draft_accepted']:.0f}")
    assert drafted == plain
    assert timings["draft_tokens"] > 0 and timings["draft_accepted"] > 0


def test_a_language_the_source_does_not_declare_is_not_drafted(q3_drafted, speech_en) -> None:
    sources = q3_drafted.recognizer.draft_source
    other = next(c for c in q3_drafted.capabilities.languages if c not in sources.languages)
    drafted, timings = _run(q3_drafted, speech_en, language=other)
    plain, _ = _run(q3_drafted, speech_en, language=other, draft=False)
    print(f"language {other} (not SenseVoice's {sources.languages}): drafted {timings['draft_tokens']:.0f}")
    assert drafted == plain
    assert timings["draft_tokens"] == 0


class _Fixed:
    """A draft source that hears what it is told (the language rule, without a model)."""

    family = "sense-voice-small"
    languages = ("zh", "en")
    warnings: list = []

    def __init__(self, heard: Heard) -> None:
        self.heard, self.runs = heard, 0

    def hear(self, samples: np.ndarray, language: str | None) -> Heard:
        self.runs += 1
        return self.heard

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("chosen", "heard", "known", "expected", "runs"),
    [
        ("en", Heard("hi", None), ("en", "de"), "en", 1),  # the chosen language, covered by both
        ("de", Heard("hi", "en"), ("en", "de"), None, 0),  # chosen, not the source's: not even run
        (None, Heard("hi", "zh"), ("en", "de"), None, 1),  # heard a language the LLM model does not know
        (None, Heard("hi", None), ("en", "zh"), None, 1),  # no language known: no head to draft
        (None, Heard("", "en"), ("en",), None, 1),  # heard nothing
        (None, Heard("hi", "zh"), ("zh",), "zh", 1),
    ],
)
def test_window_draft_keeps_to_languages_both_models_cover(chosen, heard, known, expected, runs) -> None:
    source = _Fixed(heard)
    got = window_draft(source, np.zeros(1600, np.float32), chosen, known)
    assert (got.language if got else None) == expected
    assert source.runs == runs


def test_a_model_that_cannot_draft_is_refused_with_a_coded_error(q3_model, pf_model, tiny_model) -> None:
    assert DRAFTERS == {"qwen3-asr": ("sense-voice-small", "fun-asr-nano")}
    with pytest.raises(ModelError) as refused:
        load_source(pf_model, "qwen3-asr")
    print(refused.value)
    assert refused.value.code == "draft.refused" and "paraformer" in str(refused.value)
    with pytest.raises(ModelError) as nothing:  # Nano drafts from its own head: nothing drafts for it
        load_source(q3_model, "fun-asr-nano")
    assert nothing.value.code == "draft.refused" and "none" in str(nothing.value)


def test_nano_ctc_head_drafts_for_qwen3(q3_drafted, tiny_model, speech_en) -> None:
    source = load_source(tiny_model, "qwen3-asr")
    try:
        heard = source.hear(speech_en[:32000], "en")
        print(f"Nano's CTC head heard {heard.text[:40]!r}")
        assert heard.language is None  # its CTC head names no language: it drafts only a chosen one
        assert window_draft(source, speech_en[:32000], None, ("en",)) is None
    finally:
        source.close()
