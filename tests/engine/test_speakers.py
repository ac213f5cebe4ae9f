"""Speaker embeddings: the CAM++ export computes what funasr's CAMPPlus computes.

Proof 1 of issue 33: embeddings of the exported speaker model equal funasr's
`CAMPPlus` on the same random weights (speech and noise), and the masked graph
is padding-invariant (the fixed DirectML twin included); the folder's
manifest section is read strictly. Each test prints what it measured.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.support.audio import espeak
from tests.support.paths import ROOT
from tests.support.reference_campplus import CamPlusReference
from tingji.engine.speakers.model import SpeakerModel, clip_features
from tingji.errors import ModelError, TingjiError
from tingji.export.lint import lint_directml

RATE = 16000


@pytest.fixture(scope="module")
def cp_reference(speaker_checkpoint: Path) -> CamPlusReference:
    return CamPlusReference(speaker_checkpoint)


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, np.ndarray]:
    folder = tmp_path_factory.mktemp("cp-speech")
    speech = espeak(folder / "a.wav", "Good morning, this is the first speaker of the meeting.", voice="en")
    deep = espeak(folder / "b.wav", "And this is another voice, lower and slower.", voice="en+m3", speed=130, pitch=25)
    noise = (0.05 * np.random.default_rng(7).standard_normal(RATE * 2)).astype(np.float32)
    window = int(1.5 * RATE)
    return {
        "speech 1.5 s": speech[RATE // 2 : RATE // 2 + window],
        "speech 1.0 s": speech[RATE : 2 * RATE],
        "other voice 1.5 s": deep[:window],
        "noise 1.5 s": noise[:window],
        "noise 0.3 s": noise[: int(0.3 * RATE)],
    }


# -- proof 1: funasr's CAMPPlus --------------------------------------------------------------------


def test_embeddings_equal_funasr(speaker_model, cp_reference, clips):
    """The graph on funasr's own features is funasr's network; end to end (our fbank) the direction is the same.

    The end-to-end absolute error is the front-end's: funasr computes fbank with
    kaldi-native-fbank's float32 FFT, ours in float64 (engine/frontend.py), and
    on [-1, 1] samples (CAM++ takes no int16 scaling) quiet bands differ by a
    few 1e-4, which the network carries into the embedding.
    """
    model = SpeakerModel(speaker_model, provider="cpu")
    ours = model.embed(list(clips.values()))
    graph = model.embed_features([cp_reference.features(w) for w in clips.values()])
    worst = {"graph cos": 1.0, "graph err": 0.0, "e2e cos": 1.0, "e2e err": 0.0}
    for (name, wav), mine, on_ref in zip(clips.items(), ours, graph):
        ref = cp_reference.embed(wav)
        for how, got in (("graph", on_ref), ("e2e", mine)):
            cos = float(got @ ref / np.linalg.norm(got) / np.linalg.norm(ref))
            err = float(np.abs(got - ref).max())
            print(
                f"{name:18s} {how:5s}: cosine {cos:.8f}  max abs error {err:.2e}  (|ref| max {np.abs(ref).max():.1f})"
            )
            worst[f"{how} cos"] = min(worst[f"{how} cos"], cos)
            worst[f"{how} err"] = max(worst[f"{how} err"], err)
    assert worst["graph cos"] >= 0.99999 and worst["graph err"] <= 1e-4
    assert worst["e2e cos"] >= 0.99999 and worst["e2e err"] <= 2e-3


def test_padding_invariance(speaker_model, clips):
    """A clip zero-padded to the window (the fixed batch twin, and the dynamic graph) embeds as at its real length."""
    dynamic = SpeakerModel(speaker_model, provider="cpu", policy="dynamic", exact=True)
    fixed = SpeakerModel(speaker_model, provider="cpu", policy="fixed", exact=True)
    assert fixed.graphs.policy == "fixed" and fixed.manifest.file("embedder_batch") is not None
    worst = 0.0
    for name in ("speech 1.0 s", "noise 0.3 s", "speech 1.5 s"):
        feats = clip_features(clips[name], dynamic.frontend)
        real = dynamic.embed_features([feats])[0]
        padded_fixed = fixed.embed_features([feats])[0]
        limit = dynamic.manifest.window_frames
        x = np.zeros((1, limit, feats.shape[1]), np.float32)
        m = np.zeros((1, limit), np.float32)
        x[0, : len(feats)], m[0, : len(feats)] = feats, 1
        padded_dynamic = dynamic._run_batch(x, m)[0]
        for how, got in (("batch twin", padded_fixed), ("dynamic graph", padded_dynamic)):
            err = float(np.abs(got - real).max())
            rel = err / float(np.abs(real).max())
            print(f"{name:14s} {len(feats):3d} -> {limit} frames ({how}): max abs error {err:.2e}, relative {rel:.1e}")
            worst = max(worst, rel)
    # Relative to the embedding's largest value: ONNX Runtime's convolutions sum in an order that
    # depends on the length, which moves values of ~6 by up to ~3e-5 with or without padding.
    assert worst <= 1e-5


def test_short_clip_and_batches(speaker_model, clips):
    """Clips under the graph's least length are padded; a batch of clips of several lengths (padded to its
    longest) gives each clip's own embedding (issue 45's proof 5: batched and one at a time within 1e-5)."""
    model = SpeakerModel(speaker_model, provider="cpu", exact=True)
    feats = [clip_features(c, model.frontend) for c in clips.values()]
    one_by_one = np.stack([model.embed_features([f])[0] for f in feats] + [model.embed_features([feats[0][:2]])[0]])
    together = model.embed_features(feats + [feats[0][:2]])
    diff = float(np.abs(together - one_by_one).max())
    rel = diff / float(np.abs(one_by_one).max())
    print(f"batched vs one at a time: max abs difference {diff:.2e}, relative {rel:.1e}")
    assert np.isfinite(together).all()
    assert rel <= 1e-5


def _mixed_clips(model: SpeakerModel, clips: dict[str, np.ndarray], count: int) -> list[np.ndarray]:
    """`count` feature clips of several lengths, from the test's clips cut at different starts."""
    feats = [clip_features(c, model.frontend) for c in clips.values()]
    return [feats[i % len(feats)][(7 * i) % 40 :] for i in range(count)]


def test_fixed_batch_twin(speaker_model, clips):
    """Issue 45's proof 5 under the fixed policy (DirectML's, run here on the CPU): the batch twin - full batches
    and a short last one padded with masked zero windows, each clip zero-padded to the window - gives each clip
    the dynamic graph's embedding at its real length, one at a time, within 1e-5; a clip's embedding does not
    depend on its neighbours or on the padding rows (the same bits in another batch); the one warmed session
    is the batch twin, and a clip longer than the window is a coded error."""
    dynamic = SpeakerModel(speaker_model, provider="cpu", policy="dynamic", exact=True)
    fixed = SpeakerModel(speaker_model, provider="cpu", policy="fixed", exact=True)
    batch, window = fixed.fixed_batch, fixed.manifest.window_frames
    assert batch == fixed.section.fixed_batch > 1 and fixed.graphs.keys("embedder") == [window]
    many = _mixed_clips(fixed, clips, batch + batch // 2 + 1)
    one_by_one = np.stack([dynamic.embed_features([c])[0] for c in many])
    together = fixed.embed_features(many)
    diff = float(np.abs(together - one_by_one).max())
    rel = diff / float(np.abs(one_by_one).max())
    reordered = fixed.embed_features(many[::-1])[::-1]  # other neighbours, other rows of padding
    moved = float(np.abs(reordered - together).max())
    print(
        f"batch twin ({len(many)} clips, {batch} x {window} frames a run) vs the dynamic graph one at a time:"
        f" max abs difference {diff:.2e}, relative {rel:.1e}; the clips reordered: {moved:.1e}"
    )
    assert np.isfinite(together).all()
    assert rel <= 1e-5
    assert np.array_equal(reordered, together)
    with pytest.raises(TingjiError) as err:
        fixed.embed_features([np.zeros((window + 1, fixed.section.feat_dim), np.float32)])
    assert err.value.code == "engine.window_too_long"


def test_a_folder_without_the_batch_twin_runs_one_window_at_a_time(clips):
    """A folder made before the batch twin (the committed demo speaker model: `embedder_fixed`, no
    `embedder_batch`, no `fixed_batch`) loads under the fixed policy with its one-window twin and embeds as
    before: one window a run, the dynamic graph's embeddings within 1e-5."""
    old = ROOT / "tests" / "fixtures" / "models" / "speaker-demo"
    fixed = SpeakerModel(old, provider="cpu", policy="fixed", exact=True)
    dynamic = SpeakerModel(old, provider="cpu", policy="dynamic", exact=True)
    assert fixed.manifest.file("embedder_batch") is None and fixed.manifest.file("embedder_fixed") is not None
    assert fixed.fixed_batch == 1 and fixed.graphs.keys("embedder") == [fixed.manifest.window_frames]
    many = _mixed_clips(fixed, clips, 5)
    got = fixed.embed_features(many)
    want = np.stack([dynamic.embed_features([c])[0] for c in many])
    rel = float(np.abs(got - want).max()) / float(np.abs(want).max())
    print(f"one-window twin, {len(many)} clips: relative difference {rel:.1e}")
    assert rel <= 1e-5


def test_directml_lint(speaker_model):
    """No operator DirectML lacks, no value-dependent shape. The batch twin's dynamic dimensions left (traced
    shape queries that folding may leave) are counted and printed. tests/windows/test_dml_graphs.py and
    test_dml_speakers.py run it on DirectML."""
    manifest = json.loads((speaker_model / "manifest.json").read_text())
    assert "embedder_fixed" not in manifest["files"]  # the batch twin replaces the one-window twin
    for role in ("embedder", "embedder_batch"):
        path = speaker_model / manifest["files"][role]["path"]
        problems = lint_directml(path)
        print(f"{role}: {len(problems)} DirectML problems")
        assert problems == []
        if role != "embedder":
            print(f"{role}: {len(lint_directml(path, require_static=True))} dynamic dimensions left")


def test_manifest_section_is_read_strictly(speaker_model, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(speaker_model, bad)
    data = json.loads((bad / "manifest.json").read_text())
    for key, value, code in (
        ("embeding_size", 192, "manifest.unknown_key"),
        ("embedding_size", "192", "manifest.key_not_integer"),
        ("precision", "fp16", "manifest.key_not_a_choice"),  # fp32, or int8 (the int8 CPU graph beside it)
        ("inputs", ["speech", "mask"], "manifest.key_not_a_choice"),
        ("feat_dim", 40, "manifest.key_mismatch"),
    ):
        section = dict(data["campplus"])
        section[key] = value
        (bad / "manifest.json").write_text(json.dumps({**data, "campplus": section}))
        with pytest.raises(ModelError) as err:
            SpeakerModel(bad, provider="cpu")
        print(err.value)
        assert err.value.code == code and f"campplus.{key}" in str(err.value)


def test_speaker_model_is_not_a_recognizer(speaker_model):
    from tingji.engine import Engine

    with pytest.raises(ModelError) as err:
        Engine(speaker_model, "cpu")
    assert err.value.code == "speakers.not_a_recognizer"


def test_speaker_turns_of_a_file(speaker_model, tmp_path):
    """The whole chain on a conversation: turns lie in the speech, in order, without overlap, <= the count.

    Random weights separate nobody, so who is who is not checked here (the
    demo speaker model's end-to-end test is what will).
    """
    from tingji.engine.speakers.diarize import speaker_turns

    model = SpeakerModel(speaker_model, provider="cpu")
    a = espeak(tmp_path / "a.wav", "We should ship the first version next week, if the tests pass.", voice="en")
    b = espeak(tmp_path / "b.wav", "I agree, but the installer still needs work.", voice="en+f3", pitch=80)
    gap = np.zeros(RATE // 2, np.float32)
    parts, spans, at = [], [], 0
    for clip in (a, b, a, b, a, b):
        spans.append((at, at + len(clip)))
        parts += [clip, gap]
        at += len(clip) + len(gap)
    samples = np.concatenate(parts)
    for count in (None, 2, 1):
        turns = speaker_turns(model, samples, spans, count)
        said = f"count {count}" if count else "auto"
        who = sorted({t.speaker for t in turns})
        print(f"{len(samples) / RATE:.1f} s, {len(spans)} spans, {said}: {len(turns)} turns, speakers {who}")
        # turn times are rounded to 10 ms, as funasr does
        assert turns and turns[0].start >= spans[0][0] / RATE - 0.01 and turns[-1].end <= spans[-1][1] / RATE + 0.01
        assert all(t.end > t.start for t in turns) and all(x.end <= y.start + 1e-6 for x, y in zip(turns, turns[1:]))
        assert sorted({t.speaker for t in turns}) == list(range(len({t.speaker for t in turns})))
        if count:
            assert len({t.speaker for t in turns}) <= count
    assert speaker_turns(model, samples, [], None) == []
    short = speaker_turns(model, samples, [spans[1]], None)  # under 20 windows: one speaker, one turn
    assert [(t.speaker) for t in short] == [0] and len(short) == 1
