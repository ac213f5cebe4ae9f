"""Issue 45: the int8 CAM++ CPU graph keeps the trained demo speaker model's embeddings, labels and
voice library, and the engine runs it only where int8 is faster.

The folder is tests/fixtures/models/speaker-demo with the int8 graph beside its fp32 ones, rewritten
with every eligible convolution in int8 (`min_macs=0`): the small demo model's dilated convolutions
fall under the size rule an export applies, so this is stricter than its own export, and as strict as
the full-size model's, whose every 1x1 and dilated D-TDNN convolution is rewritten.

* Embeddings: every window of a held-out two-voice conversation, int8 against fp32, cosine >= 0.99
  (chosen before measuring: an angle of at most 8 degrees, against the 0.70 that static QDQ gave).
* Labels: test_speaker_demo's conversations (2, 3 and 4 held-out voices), the product's
  `speaker_turns` with each graph: the same number of speakers, and int8's DER no worse than fp32's
  (a half-percent allowance: one window's label moving at a turn's edge).
* Voice library: voices remembered from fp32 voice prints are named from int8 ones, and no other voice is.
* Whole clips: the maskless int8 graph gives a clip the embedding it gets alone whatever else is embedded
  with it, and `embed`'s shared fbank gives each window the very features it gets alone.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest

from tests.support.paths import ROOT

SPEAKER_DEMO = ROOT / "tests" / "fixtures" / "models" / "speaker-demo"
MIN_COSINE = 0.99
DER_ALLOWANCE = 0.005

from speaker_demo import voices  # noqa: E402  (tools/ is on sys.path: pyproject's pythonpath)


@pytest.fixture(scope="module")
def int8_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """speaker-demo with `embedder_int8` added and its manifest saying int8."""
    from tingji.engine.manifest import file_entry, load_manifest, save_manifest
    from tingji.engine.speakers.model import INT8
    from tingji.export.campplus.int8 import convs_to_int8

    folder = tmp_path_factory.mktemp("speaker-int8") / "speaker-demo-int8"
    shutil.copytree(SPEAKER_DEMO, folder)
    manifest = load_manifest(folder)
    proto, done = convs_to_int8(onnx.load(str(manifest.file("embedder"))), min_macs=0)
    assert done >= 52 * 2  # every dense layer's linear1 and linear_local at least
    path = folder / "embedder.int8.onnx"
    onnx.save(proto, str(path))
    manifest.files[INT8] = file_entry(folder, path)
    manifest.section = dataclasses.replace(manifest.section, precision="int8")
    save_manifest(manifest)
    return folder


@pytest.fixture(scope="module")
def models(int8_folder: Path):
    from tingji.engine.speakers.model import INT8, SpeakerModel

    fp32 = SpeakerModel(int8_folder, provider="cpu", threads=2, int8=False)
    int8 = SpeakerModel(int8_folder, provider="cpu", threads=2, int8=True)
    assert (fp32.role, int8.role) == ("embedder", INT8)
    return fp32, int8


def vad_spans(samples: np.ndarray) -> list[tuple[int, int]]:
    """The engine's VAD speech spans over the whole file, in samples."""
    from tingji.engine.vad import SileroVad
    from tingji.engine.windows import WindowPlanner

    planner = WindowPlanner(SileroVad(), max_s=len(samples) / 16000 + 1)
    wins = [*planner.feed(samples), *planner.finish()]
    return [(w.start + round(a * 16000), w.start + round(b * 16000)) for w in wins for a, b in w.speech]


def test_engine_runs_int8_only_where_it_is_faster(int8_folder: Path):
    """By default the int8 graph runs on the CPU provider when this CPU sums int8 in int32 (VNNI, AMX);
    never under the fixed policy (DirectML's), never from a folder without it."""
    from tingji.engine.int8_cpu import fast_int8
    from tingji.engine.speakers.model import INT8, SpeakerModel

    default = SpeakerModel(int8_folder, provider="cpu", threads=1)
    fixed = SpeakerModel(int8_folder, provider="cpu", threads=1, policy="fixed", int8=True)
    plain = SpeakerModel(SPEAKER_DEMO, provider="cpu", threads=1, int8=True)
    print(f"this CPU: int8 {'faster (int32 sums)' if fast_int8() else 'not faster'}; default graph {default.role}")
    assert default.role == (INT8 if fast_int8() else "embedder")
    assert fixed.role == "embedder" and plain.role == "embedder"
    assert default.identity == plain.identity  # one voice library serves both graphs


def test_embeddings_match_fp32_on_speech(models):
    from tingji.engine.speakers import diarize

    fp32, int8 = models
    talk = voices.conversation(voices.pick_distinct(voices.held_out_voices(), 2, 2), 60, 2)
    wins = diarize.windows(vad_spans(talk.samples))
    clips = [diarize.window_audio(talk.samples, w, fp32.window_samples) for w in wins]
    a, b = fp32.embed(clips), int8.embed(clips)
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    print(f"{len(clips)} windows: int8 vs fp32 cosine min {cos.min():.5f}, mean {cos.mean():.5f}")
    assert cos.min() >= MIN_COSINE


def test_int8_clip_embedding_is_its_own(models):
    """The int8 graph has no mask (export/campplus/int8.py: whole clips): clips of several lengths in one
    call are batched by length, and each clip's embedding is the one it gets alone (proof 5's 1e-5), down
    to a clip of one frame, and close to fp32's masked one."""
    fp32, int8 = models
    rng = np.random.default_rng(7)
    lengths = (148, 100, 148, 1, 2, 100, 57)
    clips = [rng.standard_normal((n, int8.section.feat_dim)).astype(np.float32) for n in lengths]
    together = int8.embed_features(clips)
    alone = np.stack([int8.embed_features([c])[0] for c in clips])
    want = fp32.embed_features(clips)
    cos = (together * want).sum(1) / np.linalg.norm(together, axis=1) / np.linalg.norm(want, axis=1)
    print(f"batched vs alone: {np.abs(together - alone).max():.1e}; vs fp32 cosine min {cos.min():.5f}")
    assert np.abs(together - alone).max() <= 1e-5
    assert cos.min() >= MIN_COSINE


def test_chained_windows_share_their_fbank_bit_for_bit(models):
    """`embed`'s features: the windows of a span, 0.75 s apart, share one fbank (`chained_features`), and
    every clip's features are exactly what `clip_features` gives it alone (a short span's padded window too)."""
    from tingji.engine.speakers import diarize
    from tingji.engine.speakers.model import chained_features, clip_features

    _, int8 = models
    talk = voices.conversation(voices.pick_distinct(voices.held_out_voices(), 2, 2), 60, 2)
    wins = diarize.windows(vad_spans(talk.samples))
    clips = [diarize.window_audio(talk.samples, w, int8.window_samples) for w in wins]
    step = round(int8.shift_seconds * int8.frontend.sample_rate)
    chained = sum(np.array_equal(b[: len(b) - step], a[step:]) for a, b in zip(clips, clips[1:]))
    got = chained_features(clips, int8.frontend, step)
    print(f"{len(clips)} windows, {chained} of them following the one before")
    assert chained >= len(clips) // 2  # most windows do: the sharing is exercised
    assert all(np.array_equal(g, clip_features(c, int8.frontend)) for g, c in zip(got, clips, strict=True))


CASES = [(2, 60, 2), (3, 90, 3), (4, 120, 4)]  # test_speaker_demo's conversations


@pytest.mark.parametrize(("count", "seconds", "seed"), CASES, ids=[f"{n}-speakers" for n, _, _ in CASES])
def test_labels_no_worse_than_fp32(models, count: int, seconds: int, seed: int):
    from tests.engine.test_speaker_demo import der
    from tingji.engine.speakers.diarize import speaker_turns

    talk = voices.conversation(voices.pick_distinct(voices.held_out_voices(), count, seed), seconds, seed)
    spans = vad_spans(talk.samples)
    for known in (None, count):
        errors, found = [], []
        for model in models:
            turns = speaker_turns(model, talk.samples, spans, known)
            errors.append(der(talk.turns, turns, talk.seconds))
            found.append(len({t.speaker for t in turns}))
        mode = "auto" if known is None else "known"
        print(
            f"{count} voices, {mode} count: DER fp32 {100 * errors[0]:.2f}%, int8 {100 * errors[1]:.2f}%; "
            f"speakers {found}"
        )
        assert found[1] == found[0]
        assert errors[1] <= errors[0] + DER_ALLOWANCE


def test_voice_library_names_int8_prints_from_fp32_ones(models, tmp_path: Path):
    """The low-pitched voice of each held-out variant remembered from an fp32 print; the int8 prints of
    their other recordings get their names, and the high-pitched voices (same variants) get none."""
    from tingji.engine.speakers import diarize
    from tingji.engine.speakers.library import VoiceLibrary
    from tingji.engine.transcript import VoicePrint

    def voice_print(model, samples: np.ndarray) -> np.ndarray:
        wins = diarize.windows(vad_spans(samples))
        emb = model.embed([diarize.window_audio(samples, w, model.window_samples) for w in wins])
        return (emb / np.linalg.norm(emb, axis=1, keepdims=True)).mean(axis=0)

    fp32, int8 = models
    library = VoiceLibrary(tmp_path)
    named = wrong = accepted = stored = returning = others = 0
    for voice, (first, second) in enumerate(voices.recordings(voices.held_out_voices(), per_voice=2, seed=5)):
        if voice % 2 == 0:  # held_out_voices() alternates low and high pitch per variant
            name = library.remember(f"Voice {voice}", VoicePrint(voice_print(fp32, first), 10, fp32.identity)).name
            stored += 1
        match = library.match([VoicePrint(voice_print(int8, second), 10, int8.identity)])[0]
        if voice % 2 == 0:
            returning += 1
            named += match is not None and match.name == name
            wrong += match is not None and match.name != name
        else:
            others += 1
            accepted += match is not None
    print(
        f"{stored} voices remembered (fp32): {named} of {returning} int8 prints named right, {wrong} wrong; "
        f"{accepted} of {others} other voices named"
    )
    assert named == returning and wrong == 0 and accepted == 0
