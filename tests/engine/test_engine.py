"""The transcription engine: exact mode against the reference, windows, policies, cancel, guards."""

from __future__ import annotations

import inspect
import threading
from dataclasses import FrozenInstanceError, replace

import numpy as np
import pytest

from tests.support.audio import espeak, write_wav
from tests.support.paths import ROOT
from tingji.engine import Cancelled, Engine, Lane, TranscribeOptions, transcribe
from tingji.engine.decoder import open_decoder
from tingji.engine.families.fun_asr_nano.encoder import NanoEncoder
from tingji.engine.families.fun_asr_nano.prompt import build_prompt
from tingji.engine.generation import DecodeOptions
from tingji.engine.manifest import load_manifest
from tingji.engine.options import LoadOptions


@pytest.fixture(scope="module")
def exact_engine(tiny_model):
    return Engine(tiny_model, "cpu", exact=True)


@pytest.mark.parametrize("clip", ["speech_en", "noise", "speech_zh"])
def test_exact_engine_equals_reference(exact_engine, reference, clip, request):
    """The equivalence test, now through Engine in exact mode (audio array in, tokens and text out)."""
    wav = request.getfixturevalue(clip)
    ref = reference.run(wav)
    t = exact_engine.transcribe(wav)
    print(f"{clip}: {len(ref['ids'])} reference tokens; engine windows {t.windows}")
    assert t.windows == 1
    assert t.window_tokens[0] == ref["ids"]
    assert t.text == ref["text"].strip()


def test_exact_engine_equals_reference_from_a_file(exact_engine, reference, speech_en, tmp_path):
    path = write_wav(tmp_path / "clip.wav", speech_en, subtype="FLOAT")
    assert exact_engine.transcribe(path).window_tokens[0] == reference.run(speech_en)["ids"]


@pytest.fixture(scope="module")
def long_speech(tmp_path_factory):
    """150 s: speech runs that cross the 60 s and 120 s marks, short pauses between sentences."""
    folder = tmp_path_factory.mktemp("long")
    sentences = [
        espeak(folder / f"s{i}.wav", text)
        for i, text in enumerate(
            [
                "The meeting starts at nine and we will review the plan for the next quarter in detail.",
                "Please open the file, read the numbers aloud, and tell me when you are done with it.",
                "One two three four five six seven eight nine ten, and then we start again from zero.",
            ]
        )
    ]
    pause = np.zeros(int(0.6 * 16000), np.float32)
    parts, total = [], 0
    i = 0
    while total < 150 * 16000:
        s = sentences[i % len(sentences)]
        parts += [s, pause]
        total += len(s) + len(pause)
        i += 1
    audio = np.concatenate(parts)[: 150 * 16000]
    return write_wav(folder / "long.wav", audio), audio


def test_long_file_windows_cover_it_in_order(exact_engine, engine, long_speech):
    """Ordered segments covering the file to the end (exact mode: every window yields text with random weights)."""
    path, audio = long_speech
    quick = engine.transcribe(path)
    assert quick.windows == 3 and len(quick.window_tokens) == 3  # default mode decodes every speech window too
    seen = []
    t = exact_engine.transcribe(path, on_progress=lambda p: seen.append((p.window, p.done_s)))
    duration = len(audio) / 16000
    print(f"150 s file: {t.windows} windows, {len(t.segments)} segments, last ends at {t.segments[-1].end:.2f} s")
    assert t.windows == 3  # at most 60 s each
    assert [w for w, _ in seen] == [0, 1, 2]
    assert seen[-1][1] == pytest.approx(duration, abs=0.01)
    starts = [s.start for s in t.segments]
    assert starts == sorted(starts)
    assert all(s.end >= s.start for s in t.segments)
    assert all(a.end <= b.start + 1e-6 or a.window == b.window for a, b in zip(t.segments, t.segments[1:]))
    assert t.segments[-1].end > duration - 3.0  # speech runs to the end
    assert {s.window for s in t.segments} == {0, 1, 2}


def test_windows_are_cut_in_pauses(tiny_model, long_speech):
    """Cuts fall in silence (no word split at a seam), and no window exceeds 60 s."""
    from tingji.engine.vad import SileroVad
    from tingji.engine.windows import WindowPlanner

    _, audio = long_speech
    planner = WindowPlanner(SileroVad())
    windows = []
    for i in range(0, len(audio), 16000 * 7):
        windows += list(planner.feed(audio[i : i + 16000 * 7]))
    windows += list(planner.finish())
    assert sum(len(w.samples) for w in windows) == len(audio)
    assert all(w.duration_s <= 60.0 for w in windows)
    for w in windows[:-1]:
        tail = np.abs(audio[w.end - 1600 : w.end + 1600])  # 0.1 s either side of the cut
        print(f"cut at {w.end / 16000:.2f} s, peak level around it {tail.max():.4f}")
        assert tail.max() < 0.01


def test_given_vad_probabilities_replace_the_vad(engine, long_speech):
    """Probabilities a caller already has (dictation's speech check) give the windows and text the engine's own
    VAD gives, without running it again; all-quiet ones give no speech at all, so they are really used."""
    _, audio = long_speech
    audio = audio[: 70 * 16000 + 300]  # two windows, and a partial last VAD frame
    probs = engine.vad.probabilities(audio, tail=True)
    assert len(probs) == -(-len(audio) // 512)
    own = engine.live.transcribe(audio)
    calls = []
    run = engine.vad.session.run
    engine.vad.session.run = lambda *a, **k: calls.append(1) or run(*a, **k)
    try:
        given = engine.live.transcribe(audio, vad_probs=probs)
        quiet = engine.live.transcribe(audio, vad_probs=np.zeros_like(probs))
    finally:
        del engine.vad.session.run
    print(f"{own.windows} windows, {len(own.segments)} segments; VAD frames run with probabilities given: {len(calls)}")
    assert own.windows == 2 and given.windows == own.windows and given.window_tokens == own.window_tokens
    assert [(s.start, s.end, s.text) for s in given.segments] == [(s.start, s.end, s.text) for s in own.segments]
    print(f"all quiet: {quiet.windows} windows, {quiet.skipped_windows} skipped")
    assert calls == [] and quiet.segments == [] and quiet.skipped_windows == quiet.windows == 2
    with pytest.raises(ValueError, match="vad_probs"):
        engine.live.transcribe(audio[:-2000], vad_probs=probs)


def test_silence_only_gives_no_text(engine):
    t = engine.transcribe(np.zeros(16000 * 5, np.float32))
    assert t.segments == [] and t.text == ""
    assert t.skipped_windows == 1


def test_fixed_shape_policy_only_uses_warmed_shapes(tiny_model, speech_en):
    """The DirectML policy, run on the CPU provider: every run uses a warmed bucket shape."""
    manifest = load_manifest(tiny_model)
    enc = NanoEncoder(manifest, LoadOptions(provider="cpu", policy="fixed"))
    assert enc.graphs.buckets == (167, manifest.window_frames)
    warmed = {(1, b) for b in enc.graphs.buckets}
    engine = Engine(tiny_model, "cpu", policy="fixed")
    for seconds in (0.5, 3, 9.9, 10.5, 30, 59):
        n = int(seconds * 16000)
        engine.transcribe(np.resize(speech_en, n))
    shapes = {shape[:2] for _, shape in engine.recognizer.encoder.graphs.shapes_seen}
    print("shapes seen:", sorted(shapes))
    assert shapes and shapes <= warmed
    assert {s[1] for s in shapes} == set(enc.graphs.buckets)  # both buckets were needed


def test_dynamic_policy_runs_real_length(engine, speech_en):
    engine.recognizer.encoder.graphs.shapes_seen.clear()
    engine.transcribe(speech_en[: 16000 * 2])
    lengths = {shape[1] for role, shape in engine.recognizer.encoder.graphs.shapes_seen if role == "encoder"}
    assert len(lengths) == 1 and lengths.pop() < 167


def test_unavailable_provider_falls_back_to_cpu(tiny_model):
    engine = Engine(tiny_model, "cuda")
    assert engine.provider == "cpu"
    assert any("CUDA" in w.text and "CPU" in w.text for w in engine.warnings)
    assert {w.code for w in engine.warnings} == {"engine.provider_fell_back"}


def test_cancel_mid_file_keeps_finished_windows(tiny_model, long_speech):
    path, _ = long_speech
    engine = Engine(tiny_model, "cpu")
    stop = threading.Event()

    def progress(p):
        if p.window == 0:
            stop.set()

    with pytest.raises(Cancelled) as info:
        engine.transcribe(path, on_progress=progress, cancel=stop)
    partial = info.value.partial
    assert partial.segments and {s.window for s in partial.segments} == {0}
    assert partial.windows == 1  # cancelled before the second window started
    assert partial.timings["total"] > 0


def test_cancel_between_decode_steps(tiny_model, speech_en):
    """A cancel request lands inside token generation, not only between windows."""
    engine = Engine(tiny_model, "cpu")
    calls = {"n": 0}

    def cancelled():
        calls["n"] += 1
        return calls["n"] > 5

    with pytest.raises(Cancelled):
        engine.transcribe(speech_en, cancel=cancelled)
    assert calls["n"] == 6


def test_repetition_guard_stops_loops(tiny_model, speech_en):
    manifest = load_manifest(tiny_model)
    dec = open_decoder(manifest.file("decoder"), eos_ids=[], n_ctx=1024)
    p = build_prompt(manifest.section.prompt)
    rows = np.random.default_rng(0).standard_normal((20, dec.n_embd)).astype(np.float32)
    plain = dec.generate(dec.tokenize(p.before), rows, dec.tokenize(p.after), DecodeOptions(guard=False))
    looping = any(len(set(plain.tokens[i : i + 30])) <= 3 for i in range(len(plain.tokens) - 30))
    guarded = dec.generate(dec.tokenize(p.before), rows, dec.tokenize(p.after), DecodeOptions(guard=True))
    print(
        f"unguarded: {len(plain.tokens)} tokens, loops={looping}; guarded: {len(guarded.tokens)} tokens, "
        f"stop={guarded.stop}, retries={guarded.retries}"
    )
    assert looping, "the random tiny model is expected to loop unguarded"
    assert len(guarded.tokens) < len(plain.tokens)
    assert not any(len(set(guarded.tokens[i : i + 30])) <= 3 for i in range(len(guarded.tokens) - 30))


def test_prefix_kv_is_reused_across_windows(tiny_model):
    manifest = load_manifest(tiny_model)
    reused = open_decoder(manifest.file("decoder"), eos_ids=[], n_ctx=1024, exact=True)
    p = build_prompt(manifest.section.prompt, hotwords=["alpha", "beta"])
    before, after = reused.tokenize(p.before), reused.tokenize(p.after)
    rng = np.random.default_rng(1)
    opts = DecodeOptions(max_tokens=40, guard=False)
    for _ in range(3):
        rows = rng.standard_normal((15, reused.n_embd)).astype(np.float32)
        out = reused.generate(before, rows, after, opts)
        fresh = open_decoder(manifest.file("decoder"), eos_ids=[], n_ctx=1024, exact=True)
        assert out.tokens == fresh.generate(before, rows, after, opts).tokens
    # The whole prefix: the audio rows and the text after it follow in the same batch.
    assert out.reused_tokens == len(before)


@pytest.mark.load_sensitive
def test_prefix_decoded_ahead_yields_to_a_take_and_is_reused_when_done(tiny_model, monkeypatch):
    """The warm-up's background prefix: a use at once stops it (nothing decoded, no race); a use after the
    lane stayed idle finds all of it cached; either way the tokens are a fresh context's.

    "At once" and "after idling" are made unmistakable rather than timed: the idle wait is an hour
    while the take comes at once, and the later use waits for the background thread to end.
    """
    from tingji.engine import decoder_prefix

    manifest = load_manifest(tiny_model)
    p = build_prompt(manifest.section.prompt)
    ahead = open_decoder(manifest.file("decoder"), eos_ids=[], n_ctx=256, exact=True)
    fresh = open_decoder(manifest.file("decoder"), eos_ids=[], n_ctx=256, exact=True)
    before, after = ahead.tokenize(p.before), ahead.tokenize(p.after)
    rows = np.random.default_rng(5).standard_normal((12, ahead.n_embd)).astype(np.float32)
    opts = DecodeOptions(max_tokens=30, guard=False)
    ref = fresh.generate(before, rows, after, opts)

    def finished() -> None:
        ahead._ahead.join(timeout=300)  # a bound on a hang only
        assert not ahead._ahead.is_alive()

    with monkeypatch.context() as idle:
        idle.setattr(decoder_prefix, "AHEAD_AFTER_S", 3600.0)  # however slowly this thread gets to the take
        ahead.prefill_ahead(before)
        ahead.stop_ahead()  # a take starting right away
        at_once = ahead.generate(before, rows, after, opts)
    assert at_once.reused_tokens == 0 and at_once.tokens == ref.tokens
    ahead.prefill_ahead(after)  # another prefix: the cells of `before` are replaced
    finished()
    assert ahead._cached == after
    ahead.prefill_ahead(before)
    finished()
    later = ahead.generate(before, rows, after, opts)
    print(
        f"prefix {len(before)} tokens: reused 0 by a take at once, {later.reused_tokens} by one after idling; "
        f"{len(later.tokens)} tokens equal"
    )
    assert later.reused_tokens == len(before) and later.tokens == ref.tokens
    ahead.prefill_ahead(before)
    ahead.close()  # closing waits for the thread before freeing the context
    fresh.close()


EXIT_WHILE_DECODING = """
import atexit, sys, time
from tingji.engine.decoder import open_decoder
lane = open_decoder(sys.argv[1], eos_ids=[], n_ctx=256, n_threads=2)
lane.prefill_ahead([i % 200 + 10 for i in range(int(sys.argv[2]))])
atexit.register(lambda: print("at exit:", "decoding" if lane._ahead.is_alive() else "done", flush=True))
time.sleep(0.01)
print("at the end:", "decoding" if lane._ahead.is_alive() else "done", flush=True)
"""  # and the interpreter ends with the lane never closed, as a CLI run that ends right after loading does


def test_a_process_ending_while_the_prefix_decodes_waits_for_it(tiny_model, tmp_path):
    """An interpreter ending with the background prefix in llama_decode must wait for it before finalising.

    Finalising under it freed the weights the thread was reading (SIGSEGV at exit, seen on the
    full-size model); atexit handlers run after the interpreter has waited for non-daemon threads.
    """
    import os
    import subprocess
    import sys

    script = tmp_path / "exit_while_decoding.py"
    script.write_text(EXIT_WHILE_DECODING)
    run = subprocess.run(
        # 2000 tokens keep the tiny decoder busy for seconds (far beyond the script's 10 ms) and, since a
        # prefix's cost grows with its square, end well inside the bound on a busy machine too.
        [sys.executable, str(script), str(load_manifest(tiny_model).file("decoder")), "2000"],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "app")),
    )
    print(run.stdout.strip().replace("\n", "; "), f"exit {run.returncode}")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == ["at the end: decoding", "at exit: done"]


@pytest.mark.parametrize("exact", [True, False])
def test_context_grows_while_generating_without_changing_tokens(tiny_model, exact):
    """A context that starts small grows mid-generation (its KV copied over) and decodes exactly as a big one.

    Also across windows: after growing, the cached prompt prefix is still reused.
    """
    manifest = load_manifest(tiny_model)
    p = build_prompt(manifest.section.prompt)
    small = open_decoder(manifest.file("decoder"), eos_ids=[], n_ctx=256, exact=exact)
    big = open_decoder(manifest.file("decoder"), eos_ids=[], n_ctx=1024, exact=exact)
    before, after = small.tokenize(p.before), small.tokenize(p.after)
    rng = np.random.default_rng(3)
    opts = DecodeOptions(max_tokens=300, guard=False, ignore_eos=True)
    sizes = []
    for _ in range(2):
        rows = rng.standard_normal((40, small.n_embd)).astype(np.float32)
        grown, whole = small.generate(before, rows, after, opts), big.generate(before, rows, after, opts)
        sizes.append(small.n_ctx)
        assert grown.tokens == whole.tokens
    print(
        f"exact={exact}: context 256 -> {sizes}, {len(grown.tokens)} tokens equal to a 1024 context's; "
        f"prefix reused {grown.reused_tokens}"
    )
    assert sizes[0] >= len(before) + 40 + len(after) + 300 and big.n_ctx == 1024
    assert grown.reused_tokens == len(before)


@pytest.mark.parametrize("exact", [True, False])
def test_a_parked_context_comes_back_with_its_prefix_and_decodes_the_same(tiny_model, exact):
    """park() frees the context between windows; the next window rebuilds it, reuses the prefix, and
    decodes exactly what a context that was never parked decodes."""
    manifest = load_manifest(tiny_model)
    p = build_prompt(manifest.section.prompt)
    parked = open_decoder(manifest.file("decoder"), eos_ids=[], n_ctx=256, exact=exact)
    kept = open_decoder(manifest.file("decoder"), eos_ids=[], n_ctx=256, exact=exact)
    before, after = parked.tokenize(p.before), parked.tokenize(p.after)
    rng = np.random.default_rng(7)
    opts = DecodeOptions(max_tokens=300, guard=False, ignore_eos=True)
    for window in range(3):
        rows = rng.standard_normal((30, parked.n_embd)).astype(np.float32)
        out, ref = parked.generate(before, rows, after, opts), kept.generate(before, rows, after, opts)
        assert not parked.parked
        assert out.tokens == ref.tokens
        assert out.reused_tokens == (len(before) if window else 0)
        size = parked.n_ctx
        parked.park()
        assert parked.parked and parked.n_ctx == size  # comes back at the size it had grown to
    print(
        f"exact={exact}: 3 windows with a park after each, {len(out.tokens)} tokens each equal to a kept "
        f"context's; prefix reused {out.reused_tokens}; context {parked.n_ctx} positions"
    )
    parked.park()  # parking a parked context is a no-op, and closing one frees the kept prefix
    parked.close()
    assert not parked.parked


def test_the_files_lane_parks_after_a_file_and_the_live_lane_does_not(exact_engine, speech_en):
    exact_engine.live.transcribe(speech_en)
    first = exact_engine.transcribe(speech_en)
    assert exact_engine.files.state.parked and not exact_engine.live.state.parked
    again = exact_engine.transcribe(speech_en)
    assert again.window_tokens == first.window_tokens and not exact_engine.live.state.parked


def test_a_text_only_take_skips_the_ctc_pass_and_keeps_the_text(exact_engine, speech_en):
    """Dictation asks for text only (timestamps=False): with drafting off the CTC head, which then only times
    characters, is not run; with it on (issue 46) its text is the decoder's draft, and the text is the same."""
    timed = exact_engine.live.transcribe(speech_en)
    exact_engine.recognizer.drafting = False
    try:
        text_only = exact_engine.live.transcribe(speech_en, TranscribeOptions(timestamps=False))
    finally:
        exact_engine.recognizer.drafting = True
    drafted = exact_engine.live.transcribe(speech_en, TranscribeOptions(timestamps=False))
    assert drafted.window_tokens == timed.window_tokens and drafted.timings["ctc"] > 0
    print(f"ctc {timed.timings['ctc'] * 1000:.1f} ms with timestamps, {text_only.timings['ctc'] * 1000:.1f} without")
    assert text_only.window_tokens == timed.window_tokens and text_only.text == timed.text
    assert timed.timings["ctc"] > 0 and text_only.timings["ctc"] == 0
    assert text_only.segments and text_only.segments[-1].end <= text_only.duration + 1e-6


def test_hotwords_and_language_change_the_prompt(engine, speech_en):
    base = engine.transcribe(speech_en)
    hot = engine.transcribe(speech_en, TranscribeOptions(hotwords=["Tingji", "听记"], language="en"))
    assert base.window_tokens != hot.window_tokens  # the prompt reached the model
    assert hot.language == "en"


def test_one_options_object_from_every_caller_to_the_family(engine, speech_en):
    """`TranscribeOptions` is frozen and hashable whatever sequence the hotwords came in (the families key
    their tokenised prompts by it), and the lanes and the one-shot function take it as `Engine.transcribe` does."""
    listed = TranscribeOptions(hotwords=["Tingji", " ", "听记"], language="English")
    assert listed.hotwords == ("Tingji", " ", "听记") and hash(listed) == hash(replace(listed))
    assert TranscribeOptions(hotwords="Tingji").hotwords == ("Tingji",)  # one word, not five letters
    with pytest.raises(FrozenInstanceError):
        listed.language = "zh"  # type: ignore[misc]
    for call in (Engine.transcribe, Lane.transcribe, transcribe):
        kinds = {p.kind for p in inspect.signature(call).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds and "options" in inspect.signature(call).parameters
    fitted, warnings = engine._options(listed)
    assert (fitted.language, fitted.hotwords, warnings) == ("en", ("Tingji", "听记"), [])  # blank word dropped
    assert engine.live.transcribe(speech_en, listed).window_tokens == engine.transcribe(speech_en, fitted).window_tokens


def test_timings_and_metadata(engine, speech_en):
    t = engine.transcribe(speech_en)
    for key in ("read", "vad", "features", "encode", "ctc", "prefill", "generate", "total"):
        assert t.timings[key] >= 0
    assert t.timings["total"] > 0 and t.provider == "cpu" and t.model == engine.model_name
    assert abs(t.duration - len(speech_en) / 16000) < 1e-6


@pytest.mark.load_sensitive
def test_live_lane_does_not_wait_for_a_long_file(tiny_model, long_speech, speech_en):
    """A dictation take (live lane) finishes while a long file is mid-way, and both results are unchanged.

    The overlap is arranged, not timed: the file waits after its first window until the take starts,
    and before handing over its last window until the take is done. A take that waited for the file
    would leave both waiting until the bound below, and the file would end first.
    """
    path, _ = long_speech
    engine = Engine(tiny_model, "cpu", exact=True)
    alone_file = engine.transcribe(path).window_tokens
    alone_take = engine.live.transcribe(speech_en).window_tokens
    last = len(alone_file) - 1
    assert last >= 2  # windows after the first, for the take to run beside
    file_started, take_started, take_done = threading.Event(), threading.Event(), threading.Event()
    reported: list[int] = []  # the file's windows, as it reports them
    results: dict[str, list] = {}

    def progress(p) -> None:
        reported.append(p.window)
        if p.window == 0:
            file_started.set()
            take_started.wait(300)  # bounds a hang only
        elif p.window == last:
            take_done.wait(300)

    def file_job():
        results["file"] = engine.transcribe(path, on_progress=progress).window_tokens

    worker = threading.Thread(target=file_job)
    worker.start()
    assert file_started.wait(300)  # the file's first window is done; the rest is to come
    take_started.set()
    results["take"] = engine.live.transcribe(speech_en).window_tokens
    file_ended_first, windows_by_then = not worker.is_alive(), len(reported)
    take_done.set()
    worker.join()
    print(f"the take finished with {windows_by_then} of the file's {last + 1} windows reported")
    assert not file_ended_first
    assert results["take"] == alone_take and results["file"] == alone_file
