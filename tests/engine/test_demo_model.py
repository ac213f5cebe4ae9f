"""The committed demo model (tests/fixtures/models/demo) on real, synthesised speech.

Random-weight models show the engine computes what the reference computes;
this one shows it *transcribes*: words come out right, long files are cut
into 60 s windows without losing or repeating what lies at the seams, and
segments cover the file. The model was trained by tools/train_demo_model.py
(tools/demo_model/; see the fixture's README.md); the speech here comes from voice variants and
speeds that training never used (on the training accents), as in the
script's held-out set.

Short utterances meet the issue's target (held-out WER 9.9% on the
training script's 100 utterances, 8.6% on the 40 here); a whole 60 s window
of continuous speech does not: the small decoder loses its place after a
few utterances. The long-file test therefore asserts what a broken seam
would break rather than every group in order; see the fixture's README.md.
Thresholds sit a margin above what was measured, so a regression in the
engine (prompt, features, windows, VAD trimming) still fails them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.support.paths import ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"

from demo_model import recipe, speech, text  # noqa: E402  (tools/ is on sys.path: pyproject's pythonpath)


@pytest.fixture(scope="module")
def engine():
    from tingji.engine import Engine

    eng = Engine(DEMO, threads=2)
    yield eng
    eng.close()


def test_fixture_manifest_verifies():
    from tingji.engine.manifest import load_manifest, verify

    manifest = load_manifest(DEMO)
    verify(manifest, check_hashes=True)
    total = sum(entry.size for entry in manifest.files.values())
    assert total < 10_000_000, f"demo model grew to {total / 1e6:.1f} MB"
    assert not list(DEMO.rglob("*.pt")), "no PyTorch checkpoint in the fixture"


def test_held_out_voices_transcribe(engine):
    """Fresh utterances (a seed the training never saw, held-out voice variants and speeds) come out right.

    Measured on this fixture: WER 8.6%, 32/40 exact (the synthesis is repeatable, see
    `fresh_process_map`; the margin covers other CPUs' floating-point differences).
    """
    utterances = speech.held_out_set(40, seed=424242)
    hyps = [engine.transcribe(u.samples).text for u in utterances]
    refs = [u.text for u in utterances]
    error_rate = text.wer(refs, hyps)
    exact = sum(text.normalise_words(r) == text.normalise_words(h) for r, h in zip(refs, hyps))
    detail = "\n".join(
        f"{u.speaker.voice} s{u.speaker.speed}: {r!r} -> {h!r}" for u, r, h in zip(utterances, refs, hyps)
    )
    assert error_rate <= 0.15, f"WER {error_rate:.2%}\n{detail}"
    assert exact >= 27, f"only {exact}/40 exact\n{detail}"
    # Only vocabulary words come out (the LLM was trained on nothing else).
    vocabulary = set(recipe.VOCAB)
    assert all(w in vocabulary for h in hyps for w in text.normalise_words(h)), detail


def _digit_groups_file(path: Path, seconds: float, seed: int) -> tuple[list[list[str]], float]:
    """Spoken three-digit groups separated by short pauses, ~`seconds` long, as one WAV file."""
    rng = np.random.default_rng(seed)
    speaker = speech.Speaker("en-us", "m4", 170, 45, 1)  # a held-out variant and speed
    # More groups than needed (a group and its pause last well over 1 s), synthesised
    # together, each in a fresh process so the audio does not depend on test order.
    candidates = [[recipe.DIGITS[int(i)] for i in rng.integers(0, 10, 3)] for _ in range(int(seconds) + 1)]
    clips = speech.espeak_many([(" ".join(g), speaker) for g in candidates])
    parts, groups, t = [np.zeros(8000, np.float32)], [], 0.5
    for group, clip in zip(candidates, clips):
        if t >= seconds:
            break
        pause = np.zeros(int(rng.uniform(0.45, 0.8) * recipe.SAMPLE_RATE), np.float32)
        parts += [clip * 0.5, pause]
        groups.append(group)
        t += (len(clip) + len(pause)) / recipe.SAMPLE_RATE
    samples = np.concatenate(parts)
    samples += (np.random.default_rng(seed + 1).standard_normal(len(samples)) * 1e-3).astype(np.float32)
    sf.write(str(path), samples, recipe.SAMPLE_RATE, subtype="PCM_16")
    return groups, len(samples) / recipe.SAMPLE_RATE


def test_long_file_crosses_window_seams(engine, tmp_path):
    """150 s of digit groups over three 60 s windows: every window is read, the segments tile the file.

    Not asserted (the model cannot do it yet, see the fixture's README): every
    group once and in order. This model reads short utterances well but loses
    its place in a window of continuous speech: on this file (85 groups, 255
    digits) it wrote 258 digits with 176 digit errors. What it does reliably,
    and what a broken seam (a window dropped, repeated or cut mid-word) would
    break: every window yields text, nearly all of it digits, in an amount near
    what was spoken, and the timed segments are ordered, disjoint and cover the
    file.
    """
    path = tmp_path / "digits.wav"
    groups, duration = _digit_groups_file(path, 150.0, seed=5)
    result = engine.transcribe(path)
    assert result.windows >= 3, "the file must span several 60 s windows"
    ref = [d for g in groups for d in g]
    words = text.normalise_words(result.text)
    hyp = [w for w in words if w in recipe.DIGITS]
    assert len(hyp) >= 0.9 * len(words), f"not digits: {words}"
    assert 0.5 * len(ref) <= len(hyp) <= 1.3 * len(ref), f"{len(hyp)} digits heard, {len(ref)} spoken\n{hyp}"
    per_window = [0] * result.windows
    for s in result.segments:
        per_window[s.window] += sum(w in recipe.DIGITS for w in text.normalise_words(s.text))
    expected = len(ref) / result.windows
    assert all(n >= 0.4 * expected for n in per_window), f"a window lost at a seam: digits per window {per_window}"

    segments = result.segments
    assert segments
    starts = [s.start for s in segments]
    assert starts == sorted(starts), "segments out of order"
    assert all(s.end >= s.start for s in segments)
    assert all(b.start >= a.end - 0.05 for a, b in zip(segments, segments[1:])), "segments overlap"
    assert segments[0].start < 2.0
    # The last window is read (above); where its text ends is the model's reading
    # of a long window, which stops a group or two early (measured: 148.4 of 151.4 s).
    assert segments[-1].window == result.windows - 1
    assert segments[-1].end > duration - 5.0, f"last segment ends at {segments[-1].end:.1f} of {duration:.1f} s"
    assert segments[-1].end <= duration + 0.01


@pytest.mark.slow
def test_training_script_smoke(tmp_path):
    """A tiny step budget end to end: synthesis, training, release layout, export, engine."""
    out, work = tmp_path / "model", tmp_path / "work"
    cmd = [
        sys.executable,
        str(ROOT / "tools" / "train_demo_model.py"),
        "--out",
        str(out),
        "--work",
        str(work),
        "--seed",
        "3",
        "--minutes",
        "1",
        "--steps",
        "3",
        "--speakers",
        "2",
        "--eval",
        "0",
    ]
    subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True, text=True, timeout=900)

    from tingji.engine import Engine
    from tingji.engine.manifest import load_manifest, verify

    verify(load_manifest(out), check_hashes=True)
    engine = Engine(out, threads=2)
    try:
        engine.transcribe(speech.held_out_set(1, seed=1)[0].samples)  # runs; an untrained model says anything
    finally:
        engine.close()
    report = json.loads((work / "report.json").read_text())
    assert report["recipe"]["steps"] == 3

    # The checkpoint is in the official layout: funasr's own FunASRNano loads it.
    from tests.support.reference_nano import Reference

    ref = Reference(work / "checkpoint")
    assert ref.model.ctc_decoder is not None
    assert ref.model.llm.config.hidden_size == recipe.Dims().llm_hidden
