"""`tingji transcribe FILE...`: files in, transcript files out.

A bad file gets one line on stderr and does not stop the others; the exit
status is 0 only when every file succeeded. A model is named by its installed
name or its folder; turning a name into a folder is the model manager's job,
so it happens here, before the engine (which takes folders only) is loaded.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..engine.sessions import PROVIDER_CHOICES
from ..engine.writers import parse_formats, write
from ..errors import Cancelled, TingjiError, render, warning
from . import messages
from .progress import StatusLine

if TYPE_CHECKING:  # for annotations; imported where it is used, like the rest of the engine here
    from ..engine import Engine, TranscribeOptions


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "transcribe",
        help="transcribe audio or video files",
        description="Transcribe audio or video files into TXT/SRT/VTT/JSON files named after each input.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="audio or video files")
    p.add_argument("--model", required=True, help="installed model name or model folder")
    p.add_argument("--out", default=".", help="folder for the transcript files (default: current folder)")
    p.add_argument("--format", default="txt", help="comma-separated: txt,srt,vtt,json (default txt)")
    _add_device_args(p)
    _add_text_args(p)
    _add_speaker_args(p)
    _add_decoding_args(p)
    p.set_defaults(run=run)


def _add_device_args(p: argparse.ArgumentParser) -> None:
    """Where the models run: ONNX Runtime's provider and adapter, the LLM decoder's device."""
    p.add_argument("--provider", default="auto", choices=PROVIDER_CHOICES)
    p.add_argument(
        "--device",
        default=None,
        help="DirectML's graphics adapter: its number in `tingji devices` or part of its name "
        "(default: the high-performance GPU)",
    )
    p.add_argument(
        "--decoder-device",
        default=None,
        metavar="auto|cpu|vulkan[:N]",
        help="where an LLM decoder runs: auto (a Vulkan GPU the driver lists, checked at load, else the CPU), "
        "cpu, vulkan (the first Vulkan device) or vulkan:N (default: auto)",
    )


def _add_text_args(p: argparse.ArgumentParser) -> None:
    """What the transcript says: language, hotwords, number normalisation, punctuation."""
    p.add_argument("--language", default=None, help="language spoken, e.g. zh, en, ja (default: detect)")
    p.add_argument("--hotwords", default="", help="comma-separated words to favour, e.g. names and terms")
    p.add_argument("--no-itn", action="store_true", help="keep numbers as spoken words (no text normalisation)")
    p.add_argument(
        "--punctuation",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="punctuate the transcript of a model that writes none, with the installed punctuation model (default: on)",
    )
    p.add_argument(
        "--punctuation-model", default=None, help="punctuation model name or folder (default: the installed one)"
    )


def _add_speaker_args(p: argparse.ArgumentParser) -> None:
    """Speaker labels: the count, the speaker model, the voice library."""
    p.add_argument(
        "--speakers",
        default="off",
        metavar="off|auto|N",
        help="label each segment with its speaker: off, auto (count found from the audio) or the number "
        "of speakers, 1 to 8 (default: off). Models that time their tokens (SenseVoice, Paraformer, Fun-ASR-Nano "
        "with its CTC head) split a segment where the speaker changes and label each word; Qwen3-ASR and "
        "Fun-ASR-Nano without a CTC head label whole sentences",
    )
    p.add_argument("--speaker-model", default=None, help="speaker model name or folder (default: the installed one)")
    p.add_argument(
        "--voice-library",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="name returning speakers after the voices remembered in the app's voice library, as the app does "
        "(default: on)",
    )


def _add_decoding_args(p: argparse.ArgumentParser) -> None:
    """How the recogniser decodes: drafting, token limit, threads, reference mode."""
    p.add_argument(
        "--draft",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="let the LLM verify its CTC head's draft in blocks (Fun-ASR-Nano): the same text, faster; "
        "--no-draft decodes one token at a time, only to compare (default: on)",
    )
    p.add_argument(
        "--draft-model",
        default=None,
        help="the model whose text drafts for Qwen3-ASR, which has no CTC head: an installed SenseVoice-Small "
        "or Fun-ASR-Nano with a CTC head, by name or folder, in a language both know (default: the installed "
        "one, if any; --no-draft loads none)",
    )
    p.add_argument("--max-tokens", type=int, default=512, help="token limit per 60 s window (default 512)")
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: usable cores, at most 8)")
    p.add_argument(
        "--exact",
        action="store_true",
        help="reference mode: no VAD trimming, one window for clips that fit, plain greedy decoding",
    )


def _bar(label: str, fraction: float | None, done_s: float) -> str:
    if fraction is None:  # length unknown (a stream without a duration): show the seconds done
        return f"{label[:40]:40s} {done_s:7.1f} s"
    filled = int(fraction * 24)
    return f"{label[:40]:40s} {'█' * filled}{'░' * (24 - filled)} {fraction * 100:5.1f}%"


def _out_names(files: list[str], out_dir: Path) -> list[Path]:
    """Stem-based output names, disambiguated when two inputs share a stem."""
    names, used = [], set()
    for f in files:
        stem = Path(f).stem or "audio"
        candidate, n = stem, 2
        while candidate.casefold() in used:
            candidate = f"{stem} ({n})"
            n += 1
        used.add(candidate.casefold())
        names.append(out_dir / candidate)
    return names


def _check_out_dir(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TingjiError(messages.CANNOT_CREATE_OUT, folder=out, reason=exc.strerror or str(exc)) from None
    if not out.is_dir():
        raise TingjiError(messages.OUT_NOT_FOLDER, folder=out)
    probe = out / f".tingji-write-test-{os.getpid()}"
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        raise TingjiError(messages.OUT_NOT_WRITABLE, folder=out) from None


def _load_engine(args: argparse.Namespace, folder: Path, err: TextIO, speakers: Path | None) -> Engine:
    """The model (and the punctuation and speaker models asked for), with its load-time warnings and where it
    runs said once."""
    from ..engine import Engine, decoder_device
    from ..models.companions import punctuation_model

    if args.decoder_device is not None:
        decoder_device.configure(args.decoder_device)  # the process's choice, before llama.cpp loads
    punctuation = None
    if args.punctuation:
        punctuation = punctuation_model(args.punctuation_model)
    with decoder_device.preparing_shown(_show_preparing(StatusLine(err))):
        engine = Engine(
            folder,
            args.provider,
            device=args.device,
            exact=args.exact,
            threads=args.threads,
            punctuation=punctuation,
            speaker_model=speakers,
        )
    drafts = _draft_model(args, engine)
    for report in engine.warnings:
        print(f"tingji: warning: {report.text}", file=err)
    if args.punctuation and not engine.capabilities.punctuation and engine.punctuator is None:
        print(f"tingji: warning: {warning(messages.NO_PUNCTUATION_MODEL, model=engine.model_name).text}", file=err)
    where = engine.provider.upper() + (f" ({engine.device})" if engine.device else "")
    drafted = f", drafted by {drafts.name}" if drafts is not None else ""
    print(f"tingji: model {engine.model_name} on {where} (loaded in {engine.load_s:.1f} s){drafted}", file=err)
    return engine


def _draft_model(args: argparse.Namespace, engine: Engine) -> Path | None:
    """Load the model that drafts for the engine's (`--draft-model`, else an installed one that can); its folder.

    A named model that cannot draft for this one is an error (the engine is closed); an installed one that
    fails to load is one of the engine's warnings, and the model decodes undrafted."""
    from ..engine import messages as engine_messages
    from ..engine.draft_sources import drafters_for, use_draft_model
    from ..models.companions import draft_model

    if not args.draft or not (args.draft_model or drafters_for(engine.family)):
        return None
    folder = None
    try:
        folder = draft_model(engine.family, args.draft_model)
        if folder is not None:
            use_draft_model(engine, folder)
        return folder
    except TingjiError as exc:
        if args.draft_model:
            engine.close()
            raise
        engine.warnings.append(warning(engine_messages.DRAFT_UNUSED, folder=folder, reason=exc))
        return None


def _show_preparing(status: StatusLine) -> Callable[[str, float | None], None]:
    """The GPU self-check's first-time shader compile on stderr (`decoder_device.preparing_shown`): on a
    terminal a line with the seconds so far, redrawn; elsewhere a line as it starts and one when it is over."""
    from ..engine import messages as engine_messages

    started: list[float] = []  # when the first word came

    def show(adapter: str, seconds: float | None) -> None:
        if seconds is None:
            took = round(time.monotonic() - started[0]) if started else 0
            status.print("tingji: " + render(engine_messages.GPU_PREPARED.text, dict(adapter=adapter, seconds=took)))
            return
        line = "tingji: " + render(engine_messages.GPU_PREPARING.text, dict(adapter=adapter, seconds=int(seconds)))
        if not started:
            started.append(time.monotonic() - seconds)
            status.show(line, force=True) if status.tty else status.print(line)
        else:
            status.show(line)

    return show


def _options(args: argparse.Namespace) -> tuple[TranscribeOptions, Path | None]:
    """What to ask of the model, and the speaker model's folder when speakers are asked for."""
    from ..engine import TranscribeOptions
    from ..models.companions import speaker_model

    options = TranscribeOptions(
        language=args.language,
        hotwords=tuple(w.strip() for w in args.hotwords.split(",") if w.strip()),
        itn=not args.no_itn,
        max_tokens=args.max_tokens,
        speakers=args.speakers,
        draft=args.draft,
    )
    if options.speakers == "off":
        return options, None
    speakers = speaker_model(args.speaker_model)
    if speakers is None:
        raise TingjiError(messages.NO_SPEAKER_MODEL, speakers=options.speakers)
    return options, speakers


def _name_speakers(transcript: Any) -> None:
    """Returning voices named from the user's voice library: the app's own step (`library.name_speakers`)."""
    from ..engine.speakers.library import VoiceLibrary, name_speakers
    from ..paths import voices_dir

    name_speakers(transcript, VoiceLibrary(voices_dir()))


def run(args: argparse.Namespace) -> int:
    from ..models.installed import resolve_model

    formats = parse_formats(args.format)
    folder = resolve_model(args.model)
    out_dir = Path(args.out)
    _check_out_dir(out_dir)
    options, speakers = _options(args)
    err = sys.stderr
    started = time.perf_counter()
    engine = _load_engine(args, folder, err, speakers)
    shown = list(engine.warnings)  # said once at load, not again for every file
    failures = partial = 0
    status = StatusLine(err)
    targets = _out_names(args.files, out_dir)
    try:
        for i, (path, target) in enumerate(zip(args.files, targets), 1):
            label = f"[{i}/{len(args.files)}] {Path(path).name}"
            try:
                transcript = engine.transcribe(
                    path, options, on_progress=lambda p, label=label: status.show(_bar(label, p.fraction, p.done_s))
                )
                if transcript.speakers and args.voice_library:
                    _name_speakers(transcript)
                written = [write(transcript, target.with_name(target.name + "." + fmt), fmt) for fmt in formats]
            except Cancelled:
                raise KeyboardInterrupt from None
            except TingjiError as exc:
                failures += 1
                status.print(f"tingji: {exc}")
                continue
            total_s = transcript.timings.get("total", 0)
            speed = transcript.duration / max(total_s, 1e-9)
            status.print(
                f"{label}: {transcript.duration:.1f} s of audio in {total_s:.1f} s "
                f"({speed:.1f}x real time) -> {', '.join(str(w) for w in written)}"
            )
            for report in transcript.warnings:
                if report in shown:
                    continue
                print(f"tingji: warning: {path}: {report.text}", file=err)
                if report in engine.warnings:  # the GPU fell back during this file: later files say nothing more
                    shown.append(report)
            partial += not transcript.complete
    finally:
        status.finish()
        engine.close()  # waits for any background decoding before the interpreter tears down
    done = len(args.files) - failures
    partly = f" ({partial} only partly: the file could not be read to its end)" if partial else ""
    print(
        f"tingji: {done} of {len(args.files)} file(s) transcribed{partly} in {time.perf_counter() - started:.1f} s",
        file=err,
    )
    # Success means every file was read completely: a partial transcript is kept, but not passed off as whole.
    return 0 if failures == 0 and partial == 0 else 1
