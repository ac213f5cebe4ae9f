"""`tingji transcribe --draft-model` (issue 46): another installed model drafts for Qwen3-ASR, the text unchanged."""

from __future__ import annotations

import json
import shutil

from tests.cli.test_cli import tingji
from tests.support.audio import write_wav


def _json(r, out) -> dict:
    assert r.returncode == 0, r.stderr
    return json.loads((out / "talk.json").read_text(encoding="utf-8"))


def test_an_installed_sense_voice_drafts_for_qwen3_and_no_draft_loads_none(q3_model, sv_model, speech_en, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(sv_model, home / "models" / "sv-tiny")  # installed: drafting is on by default
    # Float samples, as the engine test's: the tiny random decoder's first token (EOS or not) follows the input.
    src = write_wav(tmp_path / "talk.wav", speech_en, subtype="FLOAT")
    runs = {}
    for flag in ("--draft", "--no-draft"):
        out = tmp_path / flag.strip("-")
        r = tingji(
            "transcribe", str(src), "--model", str(q3_model), "--out", str(out), "--format", "json",
            "--language", "en", "--exact", flag, home=home,
        )  # fmt: skip
        runs[flag] = (_json(r, out), r.stderr)
    drafted, plain = runs["--draft"][0], runs["--no-draft"][0]
    print(f"\ndrafted: {drafted['timings']['draft_tokens']:.0f} tokens fed, {drafted['timings']['draft_accepted']:.0f}")
    assert "drafted by sv-tiny" in runs["--draft"][1] and "drafted by" not in runs["--no-draft"][1]
    assert drafted["text"] == plain["text"] and drafted["text"]  # the LLM wrote tokens: there was room to draft
    # Loaded and asked (the key is there; a random draft may not pay a block: tests/engine/test_draft_qwen3.py
    # proves drafted tokens with a draft that agrees); --no-draft: none fed.
    assert "draft_tokens" in drafted["timings"] and drafted["timings"]["draft"] > 0
    assert plain["timings"]["draft_tokens"] == 0 and "draft" not in plain["timings"]


def test_a_named_model_that_cannot_draft_is_one_coded_line(q3_model, pf_model, speech_en, tmp_path):
    src = write_wav(tmp_path / "talk.wav", speech_en[:16000])
    r = tingji(
        "transcribe", str(src), "--model", str(q3_model), "--out", str(tmp_path), "--draft-model", str(pf_model),
        home=tmp_path / "home",
    )  # fmt: skip
    print(r.stderr)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "a paraformer model cannot draft for qwen3-asr" in r.stderr
    assert not (tmp_path / "talk.txt").exists()


def test_help_names_the_draft_model_option() -> None:
    r = tingji("transcribe", "--help")
    assert r.returncode == 0, r.stderr
    assert "--draft-model" in r.stdout and "Qwen3-ASR" in " ".join(r.stdout.split())
