"""benchmarks/draft_e2e.py's own machinery (issue 46), on the demo model: the model folder with a swapped
decoder loads, and a forced draft reaches the verifier without changing the tokens."""

from __future__ import annotations

import shutil

from tests.support.paths import ROOT

DEMO = ROOT / "tests" / "fixtures" / "models" / "demo"


def test_swapped_decoder_folder_loads_and_forced_drafts_keep_the_plain_tokens(tmp_path):
    import draft_e2e
    from demo_model import speech

    from tingji.engine import Engine, TranscribeOptions

    # The demo's own decoder under another name stands in for the decisive one: the folder must
    # load with the manifest entry rewritten (path, size, hash) and the other files linked.
    decoder = tmp_path / "decoder.other.gguf"
    shutil.copyfile(DEMO / "decoder.f16.gguf", decoder)
    folder = draft_e2e.decisive_model(DEMO, decoder, tmp_path / "model")
    assert (folder / "decoder.other.gguf").samefile(decoder)
    assert not (folder / "decoder.f16.gguf").exists()

    clip = speech.held_out_set(1, seed=424242)[0].samples
    engine = Engine(folder, threads=2)
    try:
        forced = draft_e2e.ForcedDrafts(engine.recognizer)
        n_vocab = engine.recognizer.llm.n_vocab

        def take(draft: bool) -> dict[str, float]:
            forced.seen.clear()
            opts = TranscribeOptions(max_tokens=24, ignore_eos=True, timestamps=False, draft=draft)
            return engine.live.transcribe(clip, opts).timings

        take(False)
        windows = list(forced.seen)
        assert len(windows) == 1 and len(windows[0][1]) == 24
        taken = {}
        for acceptance in (100, 90, 0):
            forced.force(acceptance, windows, n_vocab, seed=acceptance)
            timings = take(True)
            agreement = draft_e2e._agreement(forced.table, windows)
            print(acceptance, agreement, timings["draft_tokens"], timings["draft_accepted"])
            assert [t for _, t in forced.seen] == [t for _, t in windows]  # the verifier's output is plain decoding's
            assert agreement == acceptance / 100 if acceptance in (0, 100) else 0 < agreement < 1
            taken[acceptance] = timings["draft_accepted"] / max(timings["draft_tokens"], 1)
        # The forced draft, not the CTC head's (most of which the demo LLM takes), reached the verifier:
        # nothing of a draft with every token wrong is taken, and the plain output more often than 90 % of it.
        assert taken[0] == 0
        assert taken[100] > taken[90] > 0
    finally:
        engine.close()
