"""Punctuation (proof 3 of issue 36): Tingji's CT-Transformer equals funasr's, and its marks land on segments.

The punctuation model is funasr's CT-Transformer converted like any model
folder (family `ct-punc`); the judge is funasr's own CTTransformer on the
same random weights, through AutoModel. Each test prints what it measured.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from tests.support.audio import write_wav
from tests.support.paths import ROOT
from tingji.engine import Engine
from tingji.engine.punctuation import Punctuator, split_words
from tingji.errors import ModelError

MARKS = re.compile(r"[，。？、,.?]")


def _text(words: int, seed: int) -> str:
    """A transcript-like text of exactly `words` words: Chinese characters unspaced, English words spaced,
    one word the vocabulary lacks."""
    from tiny_ct_punc import token_list

    vocab = [t for t in token_list(False) if not t.startswith("<")] + ["tingjiapp"]
    rng = random.Random(seed)
    text = ""
    for _ in range(words):
        word = rng.choice(vocab)
        text += word if len(word[0].encode()) > 1 else f" {word} "
    text = re.sub(r"\s+", " ", text).strip()
    assert len(split_words(text)) == words
    return text


@pytest.mark.parametrize("words", [1, 19, 20, 21, 500])
def test_marks_equal_funasrs(punc_model, punc_reference, words):
    """The mark per word, funasr's own punctuated text, and the marks put back into the text."""
    punctuator = Punctuator(punc_model)
    text = _text(words, seed=words)
    ours, ref = punctuator.punctuate(text), punc_reference.run(text)
    counts = {m: ours.marks.count(m) for m in sorted(set(ours.marks))}
    print(f"{words} words: marks {counts} identical; {ours.text[:50]!r}...")
    assert ours.marks == ref["marks"] and len(ours.marks) == words
    assert ours.funasr_text == ref["text"] and ours.text == ref["surface"]
    assert MARKS.sub("", ours.text).replace(" ", "") == text.replace(" ", "")  # only marks were added
    assert ours.marks[-1] in (3, 4)  # funasr always ends with a sentence end


def test_a_long_sentence_is_cut_at_a_comma(tmp_path):
    """With no sentence end predicted, the carried words pass 200 and are cut at their last comma,
    as funasr cuts them (the marking rules here driven by the reference model's own marks)."""
    from tiny_ct_punc import MARKS_BIAS, make_checkpoint

    from tests.support.reference_punctuation import PunctuationReference

    bias = list(MARKS_BIAS)
    bias[3] = bias[4] = -30.0  # never 。 or ？
    ref = PunctuationReference(make_checkpoint(tmp_path / "no-ends", seed=1, marks_bias=bias))
    text = _text(500, seed=7)
    expected = ref.run(text)

    class FromReference(Punctuator):
        def __init__(self) -> None:  # the reference's marks through Tingji's rules: no ONNX graph needed
            from tingji.engine.families.ct_punc import PunctuationSection

            tokenizer = ref.kwargs["tokenizer"]
            self.ids = dict(tokenizer.token2id)
            self.section = PunctuationSection(
                precision="fp32",
                vocab_size=len(self.ids),
                marks=tuple(ref.model.punc_list),
                sentence_end_id=3,
                unk_id=tokenizer.unk_id,
            )

        def classes(self, ids: list[int]) -> list[int]:
            with torch.no_grad():
                y, _ = ref.model.punc_forward(torch.tensor([ids]), torch.tensor([len(ids)]))
            return y[0].argmax(-1).tolist()

    ours = FromReference().punctuate(text)
    cuts = ours.marks[:-1].count(3)
    print(f"500 words, no sentence end predicted: {cuts} cuts at a comma, as funasr's")
    assert cuts >= 2 and ours.marks == expected["marks"] and ours.text == expected["surface"]


def test_marks_land_on_the_right_segments(pf_model, punc_model, speech_zh):
    """A Paraformer transcript punctuated: segments are its sentences, each ending at a sentence end,
    timed from its own words' timestamps; without the punctuation model nothing changes."""
    wav = np.concatenate([speech_zh, np.zeros(8000, np.float32), speech_zh])
    engine = Engine(pf_model, "cpu", exact=True, punctuation=punc_model)
    plain = Engine(pf_model, "cpu", exact=True)
    t, bare = engine.transcribe(wav), plain.transcribe(wav)
    ids, words = engine.recognizer.words(wav)
    punctuated = engine.punctuator.punctuate(words.text)
    assert t.text == punctuated.text and bare.text == words.text and t.window_tokens == bare.window_tokens
    assert MARKS.sub("", t.text) == words.text
    # Each segment: a sentence of the punctuated text, from its first word's start to its last word's end.
    length = len(wav) / 16000  # times are clipped to the window
    chars = [
        (ch, min(length, max(0.0, s / 1000)), min(length, max(0.0, e / 1000)))
        for w, (s, e) in zip(words.words, words.times)
        for ch in w
    ]
    position = 0
    for seg in t.segments:
        spoken = MARKS.sub("", seg.text).replace(" ", "")
        mine = chars[position : position + len(spoken)]
        assert "".join(c for c, _, _ in mine) == spoken, seg
        assert abs(seg.start - mine[0][1]) < 1e-3 and abs(seg.end - mine[-1][2]) < 1e-3, (seg, mine[0], mine[-1])
        position += len(spoken)
    assert position == len(chars) and len(words.times) == len(words.words)
    ends_at_marks = sum(seg.text[-1] in "。？" for seg in t.segments)
    print(
        f"{len(t.segments)} segments, {ends_at_marks} ending at 。/？; "
        f"{[(round(s.start, 2), round(s.end, 2), s.text[:12]) for s in t.segments][:4]}"
    )
    assert len(t.segments) >= 3 and ends_at_marks >= len(t.segments) - 1 and t.segments[-1].text[-1] in "。？"
    assert t.timings["punctuation"] > 0 and "punctuation" not in bare.timings
    engine.close()
    plain.close()


def test_a_punctuation_model_is_not_a_speech_model(punc_model):
    with pytest.raises(ModelError) as info:
        Engine(punc_model, "cpu")
    print(info.value)
    assert info.value.code == "punctuation.not_a_recognizer" and "\n" not in str(info.value)


def test_cli_punctuates_or_not(pf_model, punc_model, speech_zh, tmp_path):
    """--punctuation-model punctuates, --no-punctuation does not; with none installed it says how to get one."""
    clip = write_wav(tmp_path / "clip.wav", speech_zh)
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT / "app"), "TINGJI_HOME": str(tmp_path / "home")}
    texts, stderr = {}, {}
    for name, flags in {
        "with": ["--punctuation-model", str(punc_model)],
        "without": ["--no-punctuation"],
        "none installed": [],
    }.items():
        out = tmp_path / name
        r = subprocess.run(
            [sys.executable, "-m", "tingji", "transcribe", str(clip), "--model", str(pf_model)]
            + ["--format", "json", "--out", str(out), *flags],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr
        texts[name] = json.loads((out / "clip.json").read_text(encoding="utf-8"))["text"]
        stderr[name] = r.stderr
    print(texts)
    assert MARKS.search(texts["with"]) and not MARKS.search(texts["without"])
    assert MARKS.sub("", texts["with"]) == texts["without"] == texts["none installed"]
    assert "no punctuation model is installed" in stderr["none installed"]
    assert "punctuation" not in stderr["with"] and "punctuation" not in stderr["without"]


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"model_conf.jieba_usr_dict": "jieba_usr_dict"}, "word-level punctuation model"),
        ({"model_conf.punc_list": ["<unk>", "_", "，"]}, "lacks _, ，, 。 or ？"),
        ({"encoder": "TransformerEncoder"}, "encoder 'TransformerEncoder' is not supported"),
    ],
)
def test_bad_punctuation_checkpoints_are_one_clear_line(punc_checkpoint, tmp_path, change, expected):
    import os
    import shutil

    import yaml

    from tingji.export import export_model

    folder = tmp_path / "ckpt"
    folder.mkdir()
    for item in punc_checkpoint.iterdir():
        os.symlink(item, folder / item.name) if item.name != "config.yaml" else shutil.copy(item, folder)
    config = yaml.safe_load((folder / "config.yaml").read_text(encoding="utf-8"))
    for key, value in change.items():
        section, _, field = key.partition(".")
        if field:
            config[section][field] = value
        else:
            config[key] = value
    (folder / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ModelError) as info:
        export_model(folder, tmp_path / "out")
    print(info.value)
    assert expected in str(info.value) and "config.yaml" in str(info.value) and not (tmp_path / "out").exists()


def test_int8_punctuation_keeps_the_marks(punc_checkpoint, punc_model, tmp_path):
    """int8 (MatMul weights, and the token table as int8 rows) marks as fp32 does, at a quarter of the table."""
    from tingji.export import export_model

    int8 = Punctuator(export_model(punc_checkpoint, tmp_path / "int8", precision="int8"))
    fp32 = Punctuator(punc_model)
    text = _text(500, seed=3)
    a, b = int8.punctuate(text).marks, fp32.punctuate(text).marks
    agree = sum(x == y for x, y in zip(a, b)) / len(b)
    sizes = [(m / f"punc.{p}.data").stat().st_size for m, p in ((tmp_path / "int8", "int8"), (punc_model, "fp32"))]
    print(f"int8 marks agree with fp32 on {agree:.1%} of 500 words; weights {sizes[0]} vs {sizes[1]} bytes")
    assert len(a) == len(b) and agree >= 0.95 and sizes[0] < 0.5 * sizes[1]


def test_a_nan_in_the_punctuation_model_is_a_coded_error(punc_model, tmp_path):
    """Proof 2 of issue 47 on the CPU: the punctuation model runs on the shared session layer, so NaN scores
    behind its ArgMax (a token's embedding row poisoned) are `engine.not_finite` naming the graph and the
    provider, not marks picked from NaN; text without that token is marked as by the healthy model."""
    from tests.support.faults import poison_punctuation

    poisoned = Punctuator(poison_punctuation(punc_model, tmp_path / "poisoned", "天"), provider="cpu")
    healthy = Punctuator(punc_model, provider="cpu")
    clean, dirty = "我们一起去学校吧", "今天天气很好我们一起去学校吧"
    assert poisoned.provider == "cpu" and poisoned.punctuate(clean) == healthy.punctuate(clean)
    with pytest.raises(ModelError) as info:
        poisoned.punctuate(dirty)
    print(f"healthy: {healthy.punctuate(dirty).text!r}; poisoned: {info.value}")
    assert info.value.code == "engine.not_finite" and "\n" not in str(info.value)
    assert info.value.report().fields["role"] == "punc" and info.value.report().fields["provider"] == "CPU"
    assert "poisoned" in str(info.value)


def test_the_punctuation_model_loads_as_the_recogniser_does(pf_model, punc_model, tmp_path):
    """One loader, one session layer: the engine's load options reach the punctuation model whole (its graph
    lands in the engine's graph cache, with the ArgMax scores rewrite in its key), and a speaker model's
    folder given as the punctuation model is refused with the punctuation model's own coded line."""
    import json as json_

    cache = tmp_path / "graphs"
    engine = Engine(pf_model, "cpu", threads=1, warm=False, graph_cache=cache, punctuation=punc_model)
    assert engine.punctuator is not None and engine.punctuator.provider == "cpu"
    engine.close()
    entries = [json_.loads((e / "entry.json").read_text())["fields"] for e in cache.iterdir() if e.is_dir()]
    punc = [f for f in entries if f["role"] == "punc"]
    print(f"graph cache roles: {sorted(f['role'] for f in entries)}")
    assert len(punc) == 1 and "argmax-scores-1" in punc[0]["rewrites"]
    with pytest.raises(ModelError) as info:
        Punctuator(pf_model)
    assert info.value.code == "punctuation.not_punctuation" and "\n" not in str(info.value)
