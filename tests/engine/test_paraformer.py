"""Paraformer: the exported model computes what funasr's Paraformer and BiCifParaformer compute.

1. equality with funasr 1.4.16 on the same random weights, both variants:
   token count, CIF acoustic embeddings, decoder log-probs at the argmax,
   token ids, text, BiCIF timestamps (plus the NumPy CIF, timestamp and
   text rules against funasr's own functions on random inputs);
2. padding invariance of the fixed-shape graphs, and the slot bucket
   against the full N_max decoder;
4. the DirectML lint and the fixed shape policy.
(Proof 3, punctuation, is in test_punctuation.py; proof 5, bad inputs, in
tests/export/test_paraformer_export.py.) Random tiny weights give garbage
text, so equality with the reference is the test. Each test prints what it
measured.
"""

from __future__ import annotations

import json
import random

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from onnx import TensorProto, helper

from tingji.engine import Engine, TranscribeOptions
from tingji.engine.families.paraformer import cif
from tingji.engine.families.paraformer.recognizer import slot_lengths
from tingji.engine.families.paraformer.text import words_from_tokens
from tingji.engine.frontend import features, load_cmvn
from tingji.engine.manifest import load_manifest
from tingji.engine.sessions import session_options
from tingji.errors import ModelError
from tingji.export.lint import lint_directml

VARIANTS = ("plain", "bicif")
TOLERANCE = 1e-4  # the bound for embeddings and log-probs against funasr
PADDING_TOLERANCE = 1e-5


def _session(path) -> ort.InferenceSession:
    return ort.InferenceSession(
        str(path), sess_options=session_options("cpu", None, exact=True), providers=["CPUExecutionProvider"]
    )


def _padded(x: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    """[n, ...] -> [1, length, ...] zero-padded, and its [1, length] 0/1 mask."""
    out = np.zeros((1, length) + x.shape[1:], np.float32)
    out[0, : len(x)] = x
    mask = np.zeros((1, length), np.float32)
    mask[0, : len(x)] = 1
    return out, mask


def _encode(session, feats: np.ndarray, length: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    speech, mask = _padded(feats, length or len(feats))
    enc, alphas = session.run(None, {"speech": speech, "mask": mask})
    return enc[0, : len(feats)], alphas[0, : len(feats)]


def _decode(session, enc, acoustic, frames: int | None = None, slots: int | None = None):
    e, mask = _padded(enc, frames or len(enc))
    a, slot_mask = _padded(acoustic, slots or len(acoustic))
    lp, ids = session.run(None, {"enc": e, "mask": mask, "acoustic": a, "slot_mask": slot_mask})
    return lp[0, : len(acoustic)], ids[0, : len(acoustic)]


def _fire(variant: str):
    return cif.fire_loop if variant == "bicif" else cif.fire_vectorised


@pytest.fixture(scope="module")
def models(request):
    """variant -> (model folder, reference, exact engine), built on first use."""
    built = {}

    def get(variant: str):
        if variant not in built:
            model = request.getfixturevalue("pf_model" if variant == "bicif" else "pf_plain_model")
            ref = request.getfixturevalue("pf_reference" if variant == "bicif" else "pf_plain_reference")
            built[variant] = (model, ref, Engine(model, "cpu", exact=True))
        return built[variant]

    yield get
    for _, _, engine in built.values():
        engine.close()


def _expected_times(variant: str, ref: dict) -> list[list[int]]:
    """funasr's timestamps: BiCifParaformer.inference's own; for plain Paraformer funasr's
    ts_prediction_lfr6_standard on its CIF weights and peaks in the documented argument order
    (1.4.16's inference swaps them, FunASR #3723, fixed by #3716)."""
    if variant == "bicif":
        return ref["timestamps"]
    from funasr.utils.postprocess_utils import sentence_postprocess
    from funasr.utils.timestamp_tools import ts_prediction_lfr6_standard

    _, times = ts_prediction_lfr6_standard(
        torch.from_numpy(ref["alphas"].copy()), torch.from_numpy(ref["peaks"]), list(ref["tokens"]), upsample_rate=1
    )
    return sentence_postprocess(list(ref["tokens"]), times)[1]


# -- 1. equal to funasr ------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("clip", ["speech_en", "speech_zh", "noise"])
def test_matches_funasr(models, variant, clip, request):
    """Same features, encoder states, CIF weights, token count, acoustic embeddings, decoder log-probs,
    token ids, text and timestamps as funasr's inference on the same weights."""
    from funasr.utils.postprocess_utils import sentence_postprocess

    wav = request.getfixturevalue(clip)
    model, reference, engine = models(variant)
    m = load_manifest(model)
    ref = reference.run(wav)
    ref_feats = reference.features(wav)
    fe_err = float(np.abs(features(wav, m.frontend, load_cmvn(m.file("cmvn"))) - ref_feats).max())
    enc, alphas = _encode(_session(m.file("encoder")), ref_feats)
    enc_err = float(np.abs(enc - ref["enc"]).max())
    alpha_err = float(np.abs(alphas - ref["alphas"][: len(alphas)]).max())
    fired = _fire(variant)(alphas, enc, m.section.cif.tail_threshold)
    assert fired.token_count == ref["token_num"] > 1
    emb_err = float(np.abs(fired.embeddings - ref["acoustic"]).max())
    lp, ids = _decode(_session(m.file("decoder")), enc, fired.embeddings)
    lp_err = float(np.abs(lp - ref["log_probs"].max(-1)).max())
    assert (ids == ref["log_probs"].argmax(-1)).all()

    t = engine.transcribe(wav)
    got_ids, words = engine.recognizer.words(wav)
    text, word_list = sentence_postprocess(list(ref["tokens"]))
    expected_times = _expected_times(variant, ref)
    print(
        f"{variant} {clip}: front-end {fe_err:.1e}; encoder {enc_err:.1e}; alphas {alpha_err:.1e}; "
        f"{fired.token_count} tokens; CIF embeddings {emb_err:.1e}; decoder log-prob at the argmax {lp_err:.1e}; "
        f"ids, text ({len(text)} chars) and {len(expected_times)} word times identical"
    )
    assert t.windows == 1 and t.window_tokens[0] == got_ids == ref["ids"]
    assert t.text == words.text == text and words.words == word_list
    assert words.times == expected_times
    if variant == "bicif":
        assert " ".join(words.words) == ref["text"]  # funasr joins words with spaces when it times them
    assert t.segments and t.segments[0].start >= 0 and t.segments[-1].end <= len(wav) / 16000 + 1e-6
    assert fe_err <= 1e-3 and max(enc_err, alpha_err, emb_err, lp_err) <= TOLERANCE


def _short_clips(reference, noise: np.ndarray) -> dict[int, np.ndarray]:
    """The shortest noise clips on which the reference fires 0 and 1 tokens."""
    found: dict[int, np.ndarray] = {}
    for n in range(400, 8000, 160):
        count = reference.run(noise[:n])["token_num"]
        if count in (0, 1):
            found.setdefault(count, noise[:n])
        if len(found) == 2:
            break
    assert set(found) == {0, 1}, f"no 0/1-token clip found (counts seen up to {n} samples)"
    return found


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_token_and_empty_results(models, noise, variant):
    """A clip on which no token fires gives no text and no segment (funasr returns no result); one
    that fires once gives the reference's one token."""
    _, reference, engine = models(variant)
    clips = _short_clips(reference, noise)
    empty = engine.transcribe(clips[0])
    one = engine.transcribe(clips[1])
    ref = reference.run(clips[1])
    print(
        f"{variant}: {len(clips[0])} samples -> no token, {empty.text!r}; {len(clips[1])} samples -> "
        f"{one.window_tokens[0]} {one.text!r} (funasr {ref['ids']} {ref['text']!r})"
    )
    assert empty.text == "" and empty.segments == [] and empty.window_tokens == [[]]
    assert one.window_tokens[0] == ref["ids"] and len(ref["ids"]) <= 1
    assert engine.recognizer.words(clips[1])[1].times == _expected_times(variant, ref)


def test_cif_equals_funasrs_on_random_weights():
    """The NumPy CIF equals funasr's cif_v1 (plain) and loop cif (BiCIF) bit for bit, tail included,
    on random weights from sparse to one per frame."""
    from funasr.models.bicif_paraformer.cif_predictor import cif as loop_cif
    from funasr.models.paraformer.cif_predictor import cif_v1

    rng = np.random.default_rng(3)
    checked = 0
    for trial in range(60):
        frames = int(rng.integers(1, 300))
        alphas = (rng.random(frames) * rng.choice([0.2, 0.6, 0.99])).astype(np.float32)
        hidden = rng.standard_normal((frames, 16)).astype(np.float32)
        for ours, theirs in ((cif.fire_vectorised, cif_v1), (cif.fire_loop, loop_cif)):
            fired = ours(alphas, hidden, 0.45)
            a, h = cif.with_tail(alphas, hidden, 0.45)
            embeds, peaks = theirs(torch.from_numpy(h)[None], torch.from_numpy(a)[None], 1.0)
            count = int(torch.floor(torch.from_numpy(a).sum()))
            assert (fired.peaks == peaks[0].numpy()).all(), (trial, ours.__name__)
            if count == fired.token_count:  # torch's float32 sum may round across a whole number
                assert (fired.embeddings == embeds[0, :count].numpy()).all(), (trial, ours.__name__)
                checked += 1
    print(f"{checked} of 120 random CIF runs compared bit for bit")
    assert checked >= 110


def test_token_times_equal_funasrs():
    """token_times equals funasr's ts_prediction_lfr6_standard, including its renormalising fallback,
    leading/trailing silence and the 12-frame cap; and the BiCIF upsampled peaks its loop cif_wo_hidden."""
    from funasr.models.bicif_paraformer.cif_predictor import cif_wo_hidden
    from funasr.utils.timestamp_tools import ts_prediction_lfr6_standard

    rng = np.random.default_rng(5)
    fallback = 0
    for trial in range(200):
        frames = int(rng.integers(3, 400))
        weights = (rng.random(frames) * rng.choice([0.05, 0.3, 0.6])).astype(np.float32)
        weights[rng.random(frames) < 0.3] = 0  # pauses: tokens longer than 12 frames, silences
        count = int(rng.integers(1, max(2, frames // 4)))
        us_alphas, us_peaks = cif.upsampled_peaks(weights, count)
        ref_peaks = cif_wo_hidden(torch.from_numpy(us_alphas)[None], 1.0 - 1e-4)[0].numpy()
        assert (us_peaks == ref_peaks).all(), trial
        # Scaled to `count`, the weights fire `count` peaks, one short of funasr's tokens + 1: BiCIF
        # always takes the fallback. Half the cases pass one token fewer, so the peaks are used as they are.
        fires = int((us_peaks >= cif.PEAK).sum())
        tokens = [f"t{i}" for i in range(count if trial % 2 or fires < 2 else fires - 1)]
        fallback += fires != len(tokens) + 1
        upsample = int(rng.choice([1, 3]))
        ours = cif.token_times(us_alphas, us_peaks, tokens, 0.06, upsample)
        _, theirs = ts_prediction_lfr6_standard(
            torch.from_numpy(us_alphas.copy()), torch.from_numpy(us_peaks), list(tokens), upsample_rate=upsample
        )
        assert ours == theirs, trial
    print(f"200 random timings equal funasr's, {fallback} of them through its renormalising fallback")
    assert 50 < fallback < 150


def test_words_follow_sentence_postprocess():
    """Tokens -> text, words and word times exactly as funasr's sentence_postprocess (CJK, English words,
    `@@` pieces, digits, <unk>, abbreviations), with and without timestamps."""
    from funasr.utils.postprocess_utils import sentence_postprocess

    vocab = ["今", "天", "好", "1", "2", "@", "hello", "world", "a", "b", "c", "he@@", "llo", "x@@", "<unk>", "<s>"]
    vocab += ["</s>", "I", "'", "ab'c", "，", "。", "中国", "Ab", "é"]
    rng = random.Random(0)
    timed = 0
    for _ in range(3000):
        tokens = [rng.choice(vocab) for _ in range(rng.randint(0, 12))]
        times = [[i * 100, i * 100 + 80] for i in range(len(tokens))]
        text, words = sentence_postprocess(list(tokens))
        plain = words_from_tokens(tokens)
        assert (plain.text, plain.words) == (text, words), tokens
        try:
            spaced, their_times, their_words = sentence_postprocess(list(tokens), [list(t) for t in times])
        except IndexError:  # funasr indexes past its lists on some <unk> placements; nothing to compare
            continue
        ours = words_from_tokens(tokens, times)
        assert (" ".join(ours.words), ours.times, ours.words) == (spaced, their_times, their_words), tokens
        timed += 1
    print(f"3000 random token lists decode as funasr's; {timed} with timestamps too")
    assert timed > 2500


def test_capabilities_and_what_it_cannot_do(models, speech_zh):
    """Chinese only, no hotwords, no ITN switch: asking for them warns and runs as the model can."""
    _, _, engine = models("bicif")
    caps = engine.capabilities
    assert caps.languages == ("zh",) and not caps.detects_language and not caps.hotwords and not caps.itn
    assert caps.timestamps == "tokens" and caps.live_lane
    t = engine.transcribe(speech_zh, TranscribeOptions(language="en", hotwords=["听记"]))
    print("warnings:", t.warnings)
    assert any("no hotword support" in w.text and w.code == "engine.no_hotwords" for w in t.warnings)
    assert any("cannot be told the language 'en'" in w.text for w in t.warnings)
    assert t.window_tokens == engine.transcribe(speech_zh, TranscribeOptions(language="zh")).window_tokens


def test_manifest_section_is_read_strictly(pf_model, tmp_path):
    """A few of the keys tests/engine/test_manifest_strict.py breaks one by one, each a coded line."""
    m = load_manifest(pf_model)
    assert m.section.variant == "bicif"
    assert m.section.tokens.vocab_size == len(json.loads((pf_model / "tokens.json").read_text()))
    good = json.loads((pf_model / "manifest.json").read_text(encoding="utf-8"))
    cases = {
        "paraformer.cif.tail_treshold": (lambda d: d["cif"].update(tail_treshold=0.45), "manifest.unknown_key"),
        "paraformer.variant": (lambda d: d.update(variant="seaco"), "manifest.key_not_a_choice"),
        "paraformer.cif.threshold": (lambda d: d["cif"].update(threshold="1"), "manifest.key_not_number"),
        "paraformer.tokens.vocab_size": (lambda d: d["tokens"].pop("vocab_size"), "manifest.missing_key"),
        "paraformer.tokens.blank_id": (lambda d: d["tokens"].update(blank_id=10**6), "manifest.id_out_of_range"),
    }
    for n, (key, (change, code)) in enumerate(cases.items()):
        data = json.loads(json.dumps(good))
        change(data["paraformer"])
        folder = tmp_path / f"m{n}"
        folder.mkdir()
        (folder / "manifest.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        with pytest.raises(ModelError) as info:
            load_manifest(folder)
        print(f"{key}: {info.value}")
        assert (info.value.code, info.value.fields["key"]) == (code, key) and "\n" not in str(info.value)


# -- 2. padding invariance ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def padded_case(pf_model, speech_zh):
    """Features for a full window (the clip repeated) and the graphs, dynamic and fixed."""
    m = load_manifest(pf_model)
    base = features(speech_zh, m.frontend, load_cmvn(m.file("cmvn")))
    feats = np.ascontiguousarray(np.resize(base, (m.window_frames, base.shape[1])))
    roles = ("encoder", "encoder_fixed", "decoder", "decoder_fixed")
    return m, feats, {role: _session(m.file(role)) for role in roles}


@pytest.mark.parametrize("frames", [1, 7, 83, 500, 1000])
def test_encoder_padding_invariance(padded_case, frames):
    m, feats, s = padded_case
    enc, alphas = _encode(s["encoder"], feats[:frames])
    worst = 0.0
    for role in ("encoder", "encoder_fixed"):
        p_enc, p_alphas = _encode(s[role], feats[:frames], m.window_frames)
        worst = max(worst, float(np.abs(p_enc - enc).max()), float(np.abs(p_alphas - alphas).max()))
    print(f"encoder {frames:4d} -> {m.window_frames} frames (dynamic and fixed graphs): max abs error {worst:.1e}")
    assert worst <= PADDING_TOLERANCE


@pytest.mark.parametrize("frames, slots", [(1, 1), (7, 3), (83, 30), (167, 67), (500, 200), (1000, 400), (1000, 1001)])
def test_decoder_padding_invariance(padded_case, frames, slots):
    """Valid slots do not change from the real shape to every bucket that holds them: the short frame
    bucket, the window with the slot bucket, and the fixed N_max graph."""
    m, feats, s = padded_case
    enc, _ = _encode(s["encoder"], feats[:frames])
    acoustic = np.ascontiguousarray(np.resize(enc, (slots, enc.shape[1])))
    lp, ids = _decode(s["decoder"], enc, acoustic)
    shapes = [(f, n) for f in (167, m.window_frames) if f >= frames for n in slot_lengths(f) if n >= slots]
    worst = 0.0
    for f, n in shapes:
        graph = s["decoder_fixed"] if (f, n) == (m.window_frames, m.window_frames + 1) else s["decoder"]
        p_lp, p_ids = _decode(graph, enc, acoustic, f, n)
        assert (p_ids == ids).all(), (f, n)
        worst = max(worst, float(np.abs(p_lp - lp).max()))
    print(f"decoder {frames} frames x {slots} slots -> {shapes}: ids identical, log-prob max abs error {worst:.1e}")
    assert shapes and worst <= PADDING_TOLERANCE


# -- 4. DirectML: lint and the fixed shape policy -------------------------------------------------


def test_graphs_directml_runs_pass_the_lint(pf_model):
    """No Loop, NonZero, ScatterND, LSTM or float64 in the graphs DirectML runs; the timestamp head
    (an LSTM) is flagged, and so it only ever runs on the CPU."""
    m = load_manifest(pf_model)
    for role, static in (("encoder", False), ("encoder_fixed", True), ("decoder", False), ("decoder_fixed", True)):
        problems = lint_directml(m.file(role), require_static=static)
        print(f"{role}: {len(problems)} DirectML problems")
        assert problems == [], [str(p) for p in problems]
    assert any("LSTM" in str(p) for p in lint_directml(m.file("timestamp")))


def test_lint_flags_what_funasrs_own_export_holds(tmp_path):
    """funasr's model.onnx puts CIF in the graph: NonZero, ScatterND, a float64 CumSum, Loops."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    idx = helper.make_tensor_value_info("i", TensorProto.INT64, [1, 1])
    nodes = [
        helper.make_node("NonZero", ["x"], ["nz"]),
        helper.make_node("Cast", ["x"], ["x64"], to=TensorProto.DOUBLE),
        helper.make_node("CumSum", ["x64", "axis"], ["c64"]),
        helper.make_node("ScatterND", ["x", "i", "u"], ["y"]),
    ]
    inits = [
        helper.make_tensor("axis", TensorProto.INT64, [], [0]),
        helper.make_tensor("u", TensorProto.FLOAT, [1], [1]),
    ]
    outs = [helper.make_tensor_value_info(n, t, None) for n, t in (("nz", 7), ("c64", 11), ("y", 1))]
    graph = helper.make_graph(nodes, "cif", [x, idx], outs, inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), tmp_path / "cif.onnx")
    problems = [str(p) for p in lint_directml(tmp_path / "cif.onnx")]
    print("\n".join(problems))
    assert any(p.startswith("NonZero") for p in problems) and any(p.startswith("ScatterND") for p in problems)
    assert sum("float64" in p for p in problems) >= 2  # the Cast and the CumSum


def test_fixed_shape_policy_only_uses_warmed_shapes(pf_model, speech_zh):
    """Under the fixed policy every encoder and decoder run has a warmed shape, both frame buckets and
    both slot lengths are used, the timestamp head runs on the CPU at the real length, and the
    tokens are those of the dynamic policy."""
    engine = Engine(pf_model, "cpu", policy="fixed")
    dynamic = Engine(pf_model, "cpu")
    graphs = engine.recognizer.graphs
    warmed = graphs.session_shapes()
    assert graphs.buckets == (167, 1000)
    assert warmed["decoder"] == [(1, 167, 67), (1, 167, 168), (1, 1000, 400), (1, 1000, 1001)]
    for seconds in (0.5, 3, 9.9, 10.5, 29, 45, 59.9):
        wav = np.resize(speech_zh, int(seconds * 16000))
        fixed_run, dynamic_run = engine.recognizer.words(wav), dynamic.recognizer.words(wav)
        assert fixed_run[0] == dynamic_run[0] and fixed_run[1].times == dynamic_run[1].times, seconds
    seen = {role: {shape for r, shape in graphs.shapes_seen if r == role} for role in ("encoder", "decoder")}
    print("warmed:", warmed, "seen:", {k: sorted(v) for k, v in seen.items()})
    assert {s[:2] for s in seen["encoder"]} == set(warmed["encoder"])
    assert seen["decoder"] <= set(warmed["decoder"]) and {s[1] for s in seen["decoder"]} == {167, 1000}
    ts = engine.recognizer.timestamp_graphs
    assert ts is not None and ts.provider == "cpu" and ts.policy == "dynamic"
    engine.close()
    dynamic.close()
