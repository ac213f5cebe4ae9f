"""SenseVoice-Small: the exported model computes what funasr's SenseVoiceSmall computes.

1. padding invariance of the exported encoder + CTC graph, 2. equality with
the reference (log-probs, token ids, text, tags) for every language query
and ITN choice, 3. DirectML lint and the fixed shape policy, plus the
pieces under them (detokenisation, the BPE reader, CMVN). Random tiny
weights give garbage text, so equality with the reference is the test.
Each test prints what it measured.
"""

from __future__ import annotations

import re

import numpy as np
import onnxruntime as ort
import pytest

from tingji.engine import Engine, TranscribeOptions
from tingji.engine.families.sense_voice_small.rich import N_QUERIES, QueryRows, query_ids
from tingji.engine.families.sense_voice_small.tokens import load_pieces
from tingji.engine.frontend import features, load_cmvn
from tingji.engine.manifest import load_manifest
from tingji.engine.sessions import session_options
from tingji.export.lint import lint_directml
from tingji.export.sense_voice_small.bpe import read_model

SETTINGS = [(language, itn) for language in ("auto", "zh", "en", "yue", "ja", "ko") for itn in (True, False)]
TAG = re.compile(r"<\|[^|<>]+\|>")


def _session(path, exact: bool = True) -> ort.InferenceSession:
    return ort.InferenceSession(
        str(path), sess_options=session_options("cpu", None, exact=exact), providers=["CPUExecutionProvider"]
    )


def _features(model, wav: np.ndarray) -> np.ndarray:
    m = load_manifest(model)
    return features(wav, m.frontend, load_cmvn(m.file("cmvn")))


def _run(session, feats: np.ndarray, query: np.ndarray, length: int | None = None) -> list[np.ndarray]:
    """The graph on `feats` zero-padded to `length` rows (mask marks the real ones)."""
    t = len(feats)
    length = length or t
    x = np.zeros((1, length, feats.shape[1]), np.float32)
    x[0, :t] = feats
    mask = np.zeros((1, length), np.float32)
    mask[0, :t] = 1
    return session.run(None, {"speech": x, "mask": mask, "query": query})


@pytest.fixture(scope="module")
def exact_engine(sv_model):
    return Engine(sv_model, "cpu", exact=True)


# -- 1. padding invariance ------------------------------------------------------


@pytest.mark.parametrize("frames", [1, 7, 83, 250, 500])
def test_padding_invariance(sv_model, speech_en, frames):
    m = load_manifest(sv_model)
    base = _features(sv_model, speech_en)
    feats = np.ascontiguousarray(np.resize(base, (frames, base.shape[1])))
    dyn, fixed = _session(m.file("encoder")), _session(m.file("encoder_fixed"))
    query = query_ids(m.section.queries, "en", True)
    q_vals, q_ids, vals, ids = _run(dyn, feats, query)
    worst = 0.0
    for name, sess in (("dynamic", dyn), ("fixed", fixed)):
        pq_vals, pq_ids, p_vals, p_ids = _run(sess, feats, query, m.window_frames)
        err = float(max(np.abs(pq_vals - q_vals).max(), np.abs(p_vals[:, :frames] - vals).max()))
        print(f"padding {frames:3d} -> {m.window_frames} frames ({name} graph): CTC log-prob max abs error {err:.2e}")
        assert (pq_ids == q_ids).all() and (p_ids[:, :frames] == ids).all()
        worst = max(worst, err)
    assert worst <= 1e-5


# -- 2. equal to funasr's SenseVoiceSmall -------------------------------------------


def _collapse(path: np.ndarray, blank: int = 0) -> tuple[list[int], list[int]]:
    """The reference's decoding: unique_consecutive, blanks dropped; (tokens, frame each came from)."""
    keep = np.ones(len(path), bool)
    keep[1:] = path[1:] != path[:-1]
    frames = [int(f) for f in np.flatnonzero(keep) if path[f] != blank]
    return [int(path[f]) for f in frames], frames


def _expected_tags(reference, tokens: list[int], frames: list[int], forced: str | None) -> tuple:
    """Language, emotion and event among the tokens the reference emitted at its four query rows,
    named by funasr's own tables (its lid_dict and rich_transcription_postprocess's emo/event dicts)."""
    from funasr.utils.postprocess_utils import emo_dict, event_dict

    pieces = [reference.piece(t) for t, f in zip(tokens, frames) if f < N_QUERIES]
    names = [p[2:-2] for p in pieces if TAG.fullmatch(p)]
    emotions = [n for n in names if f"<|{n}|>" in emo_dict or n == "EMO_UNKNOWN"]
    events = [n for n in names if f"<|{n}|>" in event_dict or n in ("Sing", "Speech_Noise", "Event_UNK")]
    languages = [n for n in names if n in reference.model.lid_dict and n != "auto"]
    extras = {}
    if emotions:
        extras["emotion"] = "unknown" if emotions[0] == "EMO_UNKNOWN" else emotions[0].lower()
    if events:
        extras["event"] = "unknown" if events[0] == "Event_UNK" else events[0].lower()
    language = languages[0] if languages else None
    if language == "nospeech":
        language, extras["no_speech"] = None, True
    return language or forced, extras


def test_query_rows_are_the_references(sv_reference):
    model = sv_reference.model
    rows = QueryRows()
    assert rows.language == model.lid_dict
    assert (rows.itn.on, rows.itn.off) == (model.textnorm_dict["withitn"], model.textnorm_dict["woitn"])
    assert (rows.event, rows.emotion) == (1, 2)


@pytest.mark.parametrize("clip", ["speech_en", "speech_zh", "noise"])
def test_matches_funasr(sv_model, sv_reference, exact_engine, clip, request):
    """Same log-probs, token ids, text and tags as SenseVoiceSmall.inference, every language query, ITN on/off."""
    wav = request.getfixturevalue(clip)
    m = load_manifest(sv_model)
    ref_feats = sv_reference.features(wav)
    fe_err = float(np.abs(_features(sv_model, wav) - ref_feats).max())
    session = _session(m.file("encoder"))
    worst, tagged, chars = 0.0, 0, 0
    for language, itn in SETTINGS:
        forced = None if language == "auto" else language
        ref = sv_reference.run(wav, language=language, use_itn=itn)
        q_vals, q_ids, vals, ids = _run(session, ref_feats, query_ids(m.section.queries, forced, itn))
        ours = np.concatenate([q_vals[0], vals[0]])
        k = ours.shape[1]
        expected = -np.sort(-ref["log_probs"], axis=-1)[:, :k]
        worst = max(worst, float(np.abs(ours - expected).max()))
        assert (np.concatenate([q_ids[0, :, 0], ids[0, :, 0]]) == ref["path"]).all(), (language, itn)

        t = exact_engine.transcribe(wav, TranscribeOptions(language=forced, itn=itn))
        tokens, frames = _collapse(ref["path"])
        assert t.windows == 1 and t.window_tokens[0] == tokens, (language, itn)
        assert t.text == TAG.sub("", ref["text"]).strip(), (language, itn)
        info = t.window_info[0]
        language_heard, extras = _expected_tags(sv_reference, tokens, frames, forced)
        assert (info.language, info.extras) == (language_heard, extras), (language, itn)
        tagged += bool(extras) or language_heard is not None and forced is None
        chars += sum(len(s.text) for s in t.segments)
    print(
        f"{clip}: front-end {fe_err:.2e}; CTC log-probs max abs error {worst:.2e} over {len(SETTINGS)} "
        f"language/ITN settings; token ids and text identical; {tagged} runs with tags at the query rows; "
        f"{chars} characters in timed segments"
    )
    assert fe_err <= 1e-3
    assert worst <= 1e-4


def test_tags_come_out_of_the_query_rows(sv_model, exact_engine):
    """A path whose query rows say <|en|><|HAPPY|><|Laughter|><|woitn|> reports them, text without them."""
    pieces = load_pieces(load_manifest(sv_model).file("tokens"))
    rec = exact_engine.recognizer
    ids = {p: i for i, p in enumerate(pieces.pieces)}
    text = [ids["\u2581the"], ids["\u2581three"]]
    path = np.array(
        [
            ids["<|en|>"],
            ids["<|HAPPY|>"],
            ids["<|Laughter|>"],
            ids["<|woitn|>"],
            0,
            text[0],
            text[0],
            0,
            text[1],
            ids["<|SAD|>"],
            0,
        ]
    )
    result = rec.decode(path)
    print(
        f"decoded {result.text!r}, language {result.language}, extras {result.extras}, "
        f"times {[(c.char, round(c.start, 2)) for c in result.char_times]}"
    )
    assert result.text == "the three" and result.language == "en"
    assert result.extras == {"emotion": "happy", "event": "laughter"}  # <|SAD|> after the query rows: ignored
    # "▁the" came from frame 5 = audio frame 1 (0.06 s), "▁three" from frame 8 = audio frame 4 (0.24 s).
    times = result.char_times
    assert "".join(c.char for c in times) == " the three"
    assert all(0.06 <= c.start < 0.12 for c in times[:4]) and all(0.24 <= c.start < 0.30 for c in times[4:])


def test_capabilities_and_what_it_cannot_do(exact_engine, speech_en):
    """No hotwords and five languages: asking for more warns and runs as the model can."""
    caps = exact_engine.capabilities
    assert caps.languages == ("zh", "en", "yue", "ja", "ko") and caps.detects_language and caps.itn
    assert not caps.hotwords and caps.timestamps == "tokens" and caps.tags == ("emotion", "event") and caps.live_lane
    t = exact_engine.transcribe(speech_en, TranscribeOptions(language="fr", hotwords=["Tingji"]))
    print("warnings:", t.warnings)
    assert any("no hotword support" in w.text and w.code == "engine.no_hotwords" for w in t.warnings)
    assert any("cannot be told the language 'fr'" in w.text and "detecting" in w.text for w in t.warnings)
    assert t.window_tokens == exact_engine.transcribe(speech_en).window_tokens  # the auto query row


# -- 3. DirectML: lint and the fixed shape policy ------------------------------------


def test_exported_graphs_pass_directml_lint(sv_model):
    m = load_manifest(sv_model)
    for role, static in (("encoder", False), ("encoder_fixed", True)):
        problems = lint_directml(m.file(role), require_static=static)
        print(f"{role}: {len(problems)} DirectML problems")
        assert problems == [], [str(p) for p in problems]


def test_fixed_shape_policy_only_uses_warmed_shapes(sv_model, speech_en):
    engine = Engine(sv_model, "cpu", policy="fixed")
    graphs = engine.recognizer.graphs
    warmed = {(1, b) for b in graphs.buckets}
    assert graphs.buckets == (167, load_manifest(sv_model).window_frames)
    for seconds in (0.5, 3, 9.9, 10.5, 29, 45):
        engine.transcribe(np.resize(speech_en, int(seconds * 16000)))
    shapes = {shape[:2] for _, shape in graphs.shapes_seen}
    print("warmed:", sorted(warmed), "shapes seen:", sorted(shapes))
    assert shapes and shapes <= warmed
    assert {s[1] for s in shapes} == set(graphs.buckets)


# -- the pieces underneath ---------------------------------------------------------------


def _spm_model(tmp_path, **options):
    import sentencepiece as spm
    from tiny_sense_voice import corpus

    prefix = tmp_path / "m"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus()),
        model_prefix=str(prefix),
        model_type="bpe",
        vocab_size=450,
        character_coverage=1.0,
        hard_vocab_limit=False,
        user_defined_symbols=["<|en|>", "<|HAPPY|>"],
        minloglevel=2,
        **options,
    )
    return prefix.with_suffix(".model")


@pytest.mark.parametrize(
    "options",
    [
        {"byte_fallback": True},
        {"add_dummy_prefix": False, "remove_extra_whitespaces": False},
        {"add_dummy_prefix": True, "remove_extra_whitespaces": False},
        {"unk_surface": "<?>"},
    ],
)
def test_detokenisation_equals_sentencepiece(tmp_path, sv_checkpoint, options):
    """Random id sequences (controls, tags, bytes, spaces) decode exactly as SentencePiece's DecodeIds."""
    import sentencepiece as spm

    path = _spm_model(tmp_path, **options)
    for model in (path, sv_checkpoint / "chn_jpn_yue_eng_ko_spectok.bpe.model"):
        table = read_model(model)
        sp = spm.SentencePieceProcessor(model_file=str(model))
        assert table.pieces == [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
        rng = np.random.default_rng(1)
        for _ in range(300):
            ids = rng.integers(0, len(table), size=int(rng.integers(0, 12))).tolist()
            assert table.decode(ids) == sp.decode_ids(ids), ids
    print(f"{options}: 600 random sequences decode as SentencePiece does")


def test_cmvn_reads_like_funasr(sv_checkpoint):
    from funasr.frontends.wav_frontend import load_cmvn as funasr_load_cmvn

    ours = load_cmvn(sv_checkpoint / "am.mvn")
    theirs = funasr_load_cmvn(str(sv_checkpoint / "am.mvn")).numpy()
    assert (ours.shift == theirs[0]).all() and (ours.scale == theirs[1]).all()
