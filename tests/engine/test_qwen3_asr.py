"""Qwen3-ASR: the exported model computes what transformers' native `qwen3_asr` computes.

1. the NumPy log-mel front-end vs the reference feature extractor; 2. the
ONNX audio tower vs the reference at the lengths where chunk, window and
padding mistakes show, and padding invariance of the fixed 60 s graph; 3. end
to end greedy tokens identical to the reference (speech in two languages and
noise; detected language, a forced one, a context string). Plus the engine-side
parts the reference cannot judge: answer parsing, language codes, segment
timing on speech spans. The converter's own proofs (lint, quantised exports, bad
checkpoints) are in tests/export/test_qwen3_asr_export.py. Each test prints its figure.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.support.reference_qwen3 import minute_of_speech, tower_rows, tower_session
from tingji.engine.families.qwen3_asr.encoder import num_tower_rows
from tingji.engine.manifest import load_manifest
from tingji.engine.mel import log_mel, num_frames
from tingji.engine.options import TranscribeOptions


@pytest.fixture(scope="module")
def q3_engine(q3_model: Path):
    from tingji.engine.transcribe import Engine

    engine = Engine(q3_model, exact=True)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def long_speech(speech_en: np.ndarray, speech_zh: np.ndarray) -> np.ndarray:
    return minute_of_speech(speech_en, speech_zh)


# -- 1. front-end ----------------------------------------------------------------------------


@pytest.mark.parametrize("clip", ["speech_en", "speech_zh", "silence", "0.3 s", "odd 12345", "odd 16001", "odd 273234"])
def test_log_mel_matches_the_reference_feature_extractor(q3_reference, long_speech, clip, request):
    wav = {
        "silence": np.zeros(16000, np.float32),
        "0.3 s": long_speech[:4800],
        "odd 12345": long_speech[:12345],
        "odd 16001": long_speech[5000:21001],
        "odd 273234": long_speech[:273234],
    }.get(clip)
    if wav is None:
        wav = request.getfixturevalue(clip)
    ref, mask = q3_reference.features(wav)
    ours = log_mel(wav)
    valid = int(mask.sum())
    err = float(np.abs(ref[:, :valid].T - ours).max())
    print(
        f"{clip}: {len(wav)} samples -> {len(ours)} frames (reference {valid}, padded to {ref.shape[1]}), "
        f"max abs error {err:.2e}"
    )
    assert len(ours) == valid == num_frames(len(wav))
    assert np.all(ref[:, valid:] == 0)  # the reference pads the mel with zeros, as the encoder graph does
    assert err <= 1e-4


# -- 2. encoder ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seconds", [0.3, 1, 7, 9, 17, 60])
def test_encoder_matches_the_reference(q3_model, q3_reference, long_speech, seconds):
    wav = long_speech[: int(seconds * 16000)]
    ref = q3_reference.encode(wav)
    m = load_manifest(q3_model)
    mel = log_mel(wav)
    ours = tower_rows(tower_session(m.file("encoder")), mel)
    fast = tower_rows(tower_session(m.file("encoder"), exact=False), mel)
    scale = float(np.abs(ref).max())
    err, err_fast = float(np.abs(ours - ref).max()) / scale, float(np.abs(fast - ref).max()) / scale
    print(
        f"{seconds:5} s: {len(mel)} frames -> {len(ref)} audio rows; relative error {err:.2e} "
        f"(all ORT fusions: {err_fast:.2e})"
    )
    assert ours.shape == ref.shape
    assert err <= 1e-4 and err_fast <= 1e-3


@pytest.mark.parametrize("seconds", [0.3, 1, 7, 17, 59.99])
def test_fixed_graph_is_padding_invariant(q3_model, long_speech, seconds):
    m = load_manifest(q3_model)
    mel = log_mel(long_speech[: int(seconds * 16000)])
    t, window = len(mel), m.window_frames
    dyn = tower_session(m.file("encoder"))
    (real,) = dyn.run(None, {"mel": mel[None], "mask": np.ones((1, t), np.float32)})
    padded = np.full((1, window, mel.shape[1]), 3.0, np.float32)  # garbage in the padding on purpose
    padded[0, :t] = mel
    mask = np.zeros((1, window), np.float32)
    mask[0, :t] = 1
    n = num_tower_rows(t)
    worst = 0.0
    for name, session in (("dynamic", dyn), ("fixed", tower_session(m.file("encoder_fixed")))):
        (rows,) = session.run(None, {"mel": padded, "mask": mask})
        err = float(np.abs(rows[0, :n] - real[0, :n]).max())
        print(f"{seconds} s padded to {window} frames ({name} graph): {n} rows, max abs error {err:.2e}")
        worst = max(worst, err)
        assert np.all(rows[0, n:] == 0), "rows past the valid ones must be zero"
    assert worst <= 1e-5


def test_fixed_policy_gives_the_dynamic_tokens_on_warmed_shapes_only(q3_model, q3_engine, long_speech):
    """The DirectML policy, run on the CPU provider: only the 10 s and 60 s buckets, the same tokens."""
    from tingji.engine.transcribe import Engine

    fixed = Engine(q3_model, exact=True, policy="fixed")
    try:
        graphs = fixed.recognizer.encoder.graphs
        for seconds in (3, 42):
            wav = long_speech[: seconds * 16000]
            ours = fixed.transcribe(wav, TranscribeOptions(max_tokens=24)).window_tokens[0]
            assert ours == q3_engine.transcribe(wav, TranscribeOptions(max_tokens=24)).window_tokens[0], seconds
        shapes = sorted({shape[:2] for _, shape in graphs.shapes_seen})
    finally:
        fixed.close()
    print(f"buckets {graphs.buckets}; shapes run {shapes}; tokens equal to the real-length graph's")
    assert shapes == [(1, 1000), (1, 6000)] and graphs.buckets == (1000, 6000)


# -- 3. end to end ---------------------------------------------------------------------------------

CASES = [
    ("speech_en", None, None),
    ("speech_en", "en", None),
    ("speech_en", None, "Tingji, 听记, CapsWriter"),
    ("speech_zh", None, None),
    ("speech_zh", "zh", "会议记录"),
    ("noise", None, None),
    ("noise", "ja", None),
]


@pytest.mark.parametrize("clip,language,context", CASES)
def test_end_to_end_tokens_match_the_reference(q3_engine, q3_reference, clip, language, context, request):
    """NumPy mel + ONNX tower + llama.cpp greedy from the audio rows == transformers' generate()."""
    wav = request.getfixturevalue(clip)
    ref = q3_reference.run(wav, language=language, context=context, max_new_tokens=96)
    hotwords = [w.strip() for w in context.split(",")] if context else ()
    choices = TranscribeOptions(language=language, hotwords=hotwords, max_tokens=96)
    transcript = q3_engine.transcribe(wav, choices)
    ours = transcript.window_tokens[0]
    options, _ = q3_engine._options(choices)
    before, after = q3_engine.recognizer._prompt(options)
    same_prompt = ref["prompt"][: len(before)] == before and ref["prompt"][-len(after) :] == after
    n_same = next((i for i, (a, b) in enumerate(zip(ours, ref["ids"])) if a != b), min(len(ours), len(ref["ids"])))
    print(
        f"{clip} language={language} context={context!r}: prompt identical={same_prompt}, reference "
        f"{len(ref['ids'])} tokens, ours {len(ours)}, identical prefix {n_same}; window language "
        f"{transcript.window_info[0].language}"
    )
    assert same_prompt
    assert ours == ref["ids"]
    if language is not None:
        assert transcript.window_info[0].language == language


def test_decoder_tokenizes_like_the_reference(q3_model, q3_reference):
    """llama.cpp's tokenizer from the GGUF == the release's HF tokenizer, `<asr_text>` kept as text."""
    from tingji.engine.decoder import open_decoder

    dec = open_decoder(load_manifest(q3_model).file("decoder"), eos_ids=[], n_ctx=256)
    tok = q3_reference.tokenizer
    samples = [
        "<|im_start|>system\nTingji, 听记<|im_end|>\n<|im_start|>user\n<|audio_start|>",
        "<|audio_end|><|im_end|>\n<|im_start|>assistant\nlanguage Cantonese<asr_text>",
        "language English<asr_text>Hello  world, 123.45!",
        "混合 text 和 English。\n\n tabs\t",
    ]
    for text in samples:
        ids = tok.encode(text)
        assert dec.tokenize(text) == ids, text
        assert dec.detokenize(ids) == tok.decode(ids, skip_special_tokens=True), text
    print(f"{len(samples)} prompts tokenized identically; '<asr_text>' survives detokenizing")


# -- the engine's side: answers, languages, timing ---------------------------------------------------


def test_answers_are_parsed_as_the_reference_parses_them():
    from tingji.engine.families.qwen3_asr.prompt import collapse_repeats, parse_answer

    cases = {
        "language English<asr_text>Hello there.": ("English", "Hello there."),
        "language None<asr_text>": (None, ""),
        "  language Chinese\n<asr_text> 你好 ": ("Chinese", "你好"),
        "no marker at all": (None, "no marker at all"),
    }
    for text, expected in cases.items():
        assert parse_answer(text) == expected, text
    assert parse_answer("language English<asr_text>x", forced=True) == (None, "language English<asr_text>x")
    assert collapse_repeats("ha" * 30 + "!") == "ha!" and collapse_repeats("a" * 19) == "a" * 19
    print(f"{len(cases) + 1} answers parsed; repeated runs collapsed at 20")


def test_languages_come_from_the_release_and_map_to_codes(q3_engine, q3_checkpoint):
    config = json.loads((q3_checkpoint / "config.json").read_text())
    caps = q3_engine.capabilities
    names = q3_engine.recognizer.language_names
    print(f"{len(caps.languages)} languages: {', '.join(caps.languages)}")
    assert [names[c] for c in caps.languages] == config["support_languages"]
    assert caps.detects_language and caps.hotwords and not caps.itn and not caps.open_languages
    assert q3_engine.recognizer.language_code("cantonese") == "yue"
    transcript = q3_engine.transcribe(
        np.zeros(8000, np.float32), TranscribeOptions(language="xx", itn=False, max_tokens=4)
    )
    assert any("'xx'" in w.text for w in transcript.warnings)
    assert any(w.code == "engine.itn_always_on" and "normalisation" in w.text for w in transcript.warnings)


def test_segments_sit_on_speech_spans_and_last_at_most_15_s(q3_model, long_speech):
    """No CTC head: sentences are placed on the VAD's speech spans, none longer than 15 s."""
    from tingji.engine.align import MAX_SEGMENT_S
    from tingji.engine.transcribe import Engine

    gap = np.zeros(3 * 16000, np.float32)
    wav = np.concatenate([long_speech[: 12 * 16000], gap, long_speech[20 * 16000 : 40 * 16000]])
    engine = Engine(q3_model)
    try:
        transcript = engine.transcribe(wav, TranscribeOptions(max_tokens=160))
    finally:
        engine.close()
    segs = transcript.segments
    longest = max(s.end - s.start for s in segs)
    in_gap = [s for s in segs if s.start >= 12.3 and s.end <= 14.7]
    print(f"{len(segs)} segments, longest {longest:.1f} s, {len(in_gap)} inside the 3 s pause")
    assert segs and longest <= MAX_SEGMENT_S + 1e-6
    assert not in_gap
    assert all(a.start <= b.start for a, b in zip(segs, segs[1:]))
