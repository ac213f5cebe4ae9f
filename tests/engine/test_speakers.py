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
from tests.support.reference_campplus import CamPlusReference
from tingji.engine.speakers.model import SpeakerModel, clip_features
from tingji.errors import ModelError
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
    """A clip zero-padded to the window (fixed twin, and the dynamic graph) embeds as at its real length."""
    dynamic = SpeakerModel(speaker_model, provider="cpu", policy="dynamic", exact=True)
    fixed = SpeakerModel(speaker_model, provider="cpu", policy="fixed", exact=True)
    assert fixed.graphs.policy == "fixed" and fixed.manifest.file("embedder_fixed") is not None
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
        for how, got in (("fixed twin", padded_fixed), ("dynamic graph", padded_dynamic)):
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


def test_directml_lint(speaker_model):
    """No operator DirectML lacks, no value-dependent shape. The fixed twin is not yet fully static
    (traced shape queries that folding leaves: the segment means' padding to whole segments); the count
    is printed, and making it 0 is open work. tests/windows/test_dml_graphs.py runs it on DirectML."""
    manifest = json.loads((speaker_model / "manifest.json").read_text())
    for role in ("embedder", "embedder_fixed"):
        path = speaker_model / manifest["files"][role]["path"]
        problems = lint_directml(path)
        print(f"{role}: {len(problems)} DirectML problems")
        assert problems == []
    print(f"embedder_fixed: {len(lint_directml(path, require_static=True))} dynamic dimensions left")


def test_manifest_section_is_read_strictly(speaker_model, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(speaker_model, bad)
    data = json.loads((bad / "manifest.json").read_text())
    for key, value, code in (
        ("embeding_size", 192, "manifest.unknown_key"),
        ("embedding_size", "192", "manifest.key_not_integer"),
        ("precision", "int8", "manifest.key_not_a_choice"),
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
