"""Does the live preview make dictation's final text later? (issue 35)

    python benchmarks/dictation_preview.py [--full] [--takes 6] [--no-write]

For SenseVoice-Small and Fun-ASR-Nano as the dictation model, each previewing
itself, and for the fallback (Fun-ASR-Nano dictating while SenseVoice-Small
previews on an Engine of its own, what the app does when it measures the
dictation model too slow for the preview; forced here by giving the cost, so it
is measured on any machine): 3 s takes of
espeak-ng speech spoken in real time into a DictationController (a scripted
microphone; VAD, WAV, the live lane, the history and the output are the real
ones), preview on and off in turns so that both see the same load. Measured:

  * final latency: the take's end (key release) to the paste key, the
    controller's own `latency_s`; median per mode, and on / off as the ratio
    (goal <= 1.1, for each model);
  * preview interval: seconds between consecutive preview updates while
    speaking (median), what the overlay's refresh really was;
  * the preview model's choice: which model previewed, and the dictation
    model's measured cost of a preview run (tingji.dictation.preview's rule).

Models: random weights at the real sizes with `--full` (built once under
benchmarks/.cache/full/preview/, large), else tiny ones (a few MB, built in
seconds: the cost structure, not the real figures). The result goes to
`results/latest.json` (`dictation_preview_final_latency_ratio`, the worst
model's ratio, `dictation_preview_interval_s`, and `dictation_preview` with
every figure) unless `--no-write`. Run it on a quiet machine (`uptime`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import BENCH, machine

RATE = 16000
BLOCK = 512
SENTENCE = "Please send the report to the team by Friday."


def build(cache: Path, full: bool) -> dict[str, Path]:
    """Both models, exported once into `cache` (int8 encoder; Nano with its q5_k decoder, as shipped)."""
    import make_tiny_checkpoint
    import tiny_sense_voice

    from tingji.export import export_model

    models = {}
    for name, maker, quant in (
        ("SenseVoice-Small", tiny_sense_voice.make_checkpoint, "f16"),
        ("Fun-ASR-Nano", make_tiny_checkpoint.make_checkpoint, "q5_k"),
    ):
        out = cache / name
        if not (out / "manifest.json").is_file():
            print(f"building {name} ({'full size' if full else 'tiny'})", file=sys.stderr)
            ckpt = maker(cache / f"{name}-checkpoint", seed=0, full_size=full)
            export_model(ckpt, out, precision="int8", decoder_quant=quant)
        models[name] = out
    return models


def three_seconds(folder: Path) -> np.ndarray:
    from tests.support.audio import espeak

    samples = espeak(folder / "take.wav", SENTENCE)
    return np.concatenate([np.zeros(RATE // 4, np.float32), samples])[: 3 * RATE].astype(np.float32)


class Mic:
    """The controller's microphone, spoken into by `speak` in real time."""

    def __init__(self) -> None:
        self.on_audio = None
        self.on_error = None
        self.parts: list[np.ndarray] = []
        self.recording = False
        self.lock = threading.Lock()

    def open(self) -> None: ...

    def prepare(self, armed: bool = True) -> None: ...

    def set_options(self, **kwargs: Any) -> None: ...

    def close(self) -> None: ...

    def begin(self) -> None:
        with self.lock:
            self.recording, self.parts = True, []

    def end(self, tail_s: float | None = None):
        from tingji.dictation.capture import TakeAudio

        with self.lock:
            self.recording = False
            return TakeAudio(np.concatenate(self.parts) if self.parts else np.zeros(0, np.float32))

    def speak(self, samples: np.ndarray) -> None:
        start = time.perf_counter()
        for n, i in enumerate(range(0, len(samples), BLOCK)):
            block = samples[i : i + BLOCK]
            with self.lock:
                self.parts.append(block)
            self.on_audio(block)
            time.sleep(max(0.0, start + (n + 1) * BLOCK / RATE - time.perf_counter()))


def faster_preview(model: Path, faster: Path | None):
    """The PreviewModel of a case: None (the dictation model previews itself, measured), or `faster` previewing
    from the first take (the cost given as over the interval, the faster model loaded before the takes)."""
    from tingji.dictation.preview import FasterModel, PreviewModel
    from tingji.engine import Engine

    if faster is None:
        return None
    return PreviewModel(model.name, FasterModel(faster.name, lambda: Engine(faster, "cpu")), cost_s=float("inf"))


def load_faster(preview) -> None:
    """Load the faster model before a take (the controller unloads it with each preview-off take)."""
    from tingji.engine import TranscribeOptions

    preview.prepare(TranscribeOptions())
    while preview.choice.state not in ("faster", "failed"):
        time.sleep(0.01)
    if preview.choice.state == "failed":
        raise SystemExit("dictation_preview: the faster preview model did not load")


def measure_model(model: Path, audio: np.ndarray, takes: int, home: Path, faster: Path | None = None) -> dict[str, Any]:
    from tests.support.clipboard import MemoryClipboard
    from tests.support.dictation import Keys
    from tingji.dictation.controller import DictationController
    from tingji.dictation.events import NothingSaid, PreviewText, TakeStored
    from tingji.dictation.history import DictationHistory
    from tingji.dictation.settings import DictationSettings
    from tingji.engine import Engine

    engine = Engine(model, "cpu")
    events: list[tuple[float, Any]] = []
    mic, clipboard = Mic(), MemoryClipboard("")
    controller = DictationController(
        engine,
        DictationSettings(restore_delay_s=0.0, keep_recordings=0),
        clipboard=clipboard,
        keys=Keys(clipboard),
        history=DictationHistory(home / "d.sqlite3", home / "rec"),
        microphone=mic,
        on_event=lambda e: events.append((time.perf_counter(), e)),
        use_hotkey=False,
        preview_model=faster_preview(model, faster),
    )
    controller.start(recover=False)
    latency: dict[str, list[float]] = {"on": [], "off": []}
    intervals: list[float] = []
    texts: dict[str, set[str]] = {"on": set(), "off": set()}
    empty_takes = 0
    try:
        for i in range(2 * takes + 2):  # the first pair warms up
            mode = "on" if i % 2 else "off"
            controller.apply_settings(DictationSettings(restore_delay_s=0.0, keep_recordings=0, preview=mode == "on"))
            controller.wait_idle(30)
            if faster is not None and mode == "on":
                load_faster(controller.preview_model)
            del events[:]
            controller.begin_take()
            while not mic.recording:
                time.sleep(0.001)
            mic.speak(audio)
            released = time.perf_counter()
            controller.end_take()
            controller.wait_idle(120)
            # Random full-size weights can decode to no text (Fun-ASR-Nano's LLM ends at once): the take is then
            # "empty", nothing is pasted, and its latency is the key release to that event, in both modes alike.
            t_end, end = next((t, e) for t, e in events if isinstance(e, (TakeStored, NothingSaid)))
            previews = [t for t, e in events if isinstance(e, PreviewText)]
            if i >= 2:
                if isinstance(end, TakeStored):
                    latency[mode].append(end.take.latency_s)
                    texts[mode].add(end.take.text)
                else:
                    latency[mode].append(t_end - released)
                    texts[mode].add("")
                    empty_takes += 1
                intervals += list(np.diff(previews))
        choice = controller.preview_model.choice
    finally:
        controller.close()
        engine.close()
    on, off = statistics.median(latency["on"]), statistics.median(latency["off"])
    return {
        "final_latency_on_s": on,
        "final_latency_off_s": off,
        "final_latency_ratio": on / off,
        "preview_interval_s": statistics.median(intervals) if intervals else None,
        "preview_updates_per_take": len(intervals) / takes + 1 if intervals else 0,
        "same_text_on_and_off": texts["on"] == texts["off"],
        "empty_takes": empty_takes,  # latency to the "empty" event, not to a paste
        "preview_model": choice.model,
        "preview_choice": choice.state,
        "dictation_model_preview_cost_s": None if choice.cost_s == float("inf") else choice.cost_s,
        "all_on_s": latency["on"],
        "all_off_s": latency["off"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="random weights at the real sizes (large, slow to build)")
    ap.add_argument("--takes", type=int, default=6, help="takes per mode and model")
    ap.add_argument("--no-write", action="store_true", help="print only; leave results/latest.json alone")
    args = ap.parse_args(argv)
    cache = BENCH / ".cache" / ("full" if args.full else "quick") / "preview"
    cache.mkdir(parents=True, exist_ok=True)
    models = build(cache, args.full)
    with tempfile.TemporaryDirectory(prefix="tingji-preview-bench-") as tmp:
        audio = three_seconds(Path(tmp))
        results = {name: measure_model(path, audio, args.takes, Path(tmp) / name) for name, path in models.items()}
        fallback = "Fun-ASR-Nano, previewed by SenseVoice-Small"
        results[fallback] = measure_model(
            models["Fun-ASR-Nano"], audio, args.takes, Path(tmp) / "fallback", faster=models["SenseVoice-Small"]
        )
    doc = {
        "weights": "full-size" if args.full else "tiny",
        "takes_per_mode": args.takes,
        "take_s": 3.0,
        "models": results,
    }
    summary = {
        "dictation_preview_final_latency_ratio": max(r["final_latency_ratio"] for r in results.values()),
        "dictation_preview_interval_s": max(r["preview_interval_s"] or 0.0 for r in results.values()),
    }
    print(json.dumps({**summary, "dictation_preview": doc}, indent=2))
    if not args.no_write:
        path = BENCH / "results" / "latest.json"
        latest = json.loads(path.read_text())
        latest.update(summary)
        latest.setdefault("summary", {}).update(summary)
        latest["dictation_preview"] = doc | {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M")}
        path.write_text(json.dumps(latest, indent=2, default=str) + "\n")
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
