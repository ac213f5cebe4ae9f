"""`tingji models ...`: manage installed models from the command line.

`add_subparser(subparsers)` registers the `models` command (its parser gets
`func=run`); `run(args)` returns 0 on success and 1 on failure after printing
one line to stderr, never a traceback. Progress goes to stderr: one updating
line with speed on a terminal, plain lines otherwise.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import Any, TextIO

from ..engine.errors import Cancelled, TingjiError
from .catalog import HashCount
from .diskspace import format_bytes


def add_subparser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "models", help="list, download, install, import, verify or remove models",
        description="Manage the speech models Tingji uses (stored under the user data folder).",
    )
    sub = parser.add_subparsers(dest="models_command", metavar="COMMAND")
    sub.required = True
    sub.add_parser("list", help="installed models (and the ones available for download)")
    p = sub.add_parser("install", help="install a model archive (.zip/.tar.*) from an https URL")
    p.add_argument("url")
    p.add_argument("--sha256", required=True, metavar="HEX", help="SHA-256 of the archive")
    p.add_argument("--name", required=True, help="name to install the model under")
    p = sub.add_parser("download", help="download a model from the catalog (see `tingji models list`)")
    p.add_argument("name")
    p.add_argument("--as", dest="install_as", metavar="NAME", help="install under another name")
    p = sub.add_parser("import", help="install a copy of a model folder")
    p.add_argument("dir")
    p.add_argument("--name", help="name to install it under (default: the folder's name)")
    p = sub.add_parser("verify", help="check every file of an installed model against its SHA-256")
    p.add_argument("name")
    p = sub.add_parser("remove", help="delete an installed model")
    p.add_argument("name")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p = sub.add_parser("forget-pin", help="forget the SHA-256 hashes pinned by a catalog model's first download",
                       description="A catalog model without published hashes gets its hashes pinned by the "
                       "first download that installs; later downloads must match them. Forget them when the "
                       "model was legitimately updated; the next download pins anew.")
    p.add_argument("name")
    parser.set_defaults(func=run)
    return parser


class _Reporter:
    """Stage progress on stderr: `\\r`-updated on a TTY, a line per 10 % otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.stage: str | None = None
        self.last_decile = -1
        self.last_draw = 0.0
        self.dirty = False
        self.width = 0

    def __call__(self, stage: str, done: int, total: int | None, bps: float) -> None:
        if stage != self.stage:
            self.finish_line()
            self.stage = stage
            self.last_decile = -1
            self.last_draw = 0.0
            if not self.tty:
                print(f"{stage} ...", file=self.stream, flush=True)
        amount = f"{format_bytes(done)} of {format_bytes(total)}" if total else format_bytes(done)
        percent = f"{100 * done / total:5.1f}% " if total else ""
        speed = f", {format_bytes(bps)}/s" if bps > 0 else ""
        if self.tty:
            now = time.monotonic()
            if now - self.last_draw < 0.1 and not (total and done >= total):
                return
            self.last_draw = now
            line = f"{stage}: {percent}{amount}{speed}" if total or done else f"{stage} ..."
            # Pad instead of an ANSI erase: old Windows consoles print escapes literally.
            self.stream.write("\r" + line + " " * max(0, self.width - len(line)))
            self.width = len(line)
            self.stream.flush()
            self.dirty = True
        elif total:
            decile = min(10, int(10 * done / total))
            if decile > self.last_decile:
                self.last_decile = decile
                print(f"{stage}: {percent.strip()} {amount}{speed}", file=self.stream, flush=True)

    def finish_line(self) -> None:
        if self.dirty:
            self.stream.write("\n")
            self.stream.flush()
            self.dirty = False
            self.width = 0


def _list(out: TextIO) -> None:
    from .installed import list_models

    models = list_models()
    if not models:
        print("no models installed", file=out)
    else:
        width = max(len(m.name) for m in models)
        for m in models:
            status = "ok" if m.manifest_ok else f"BROKEN: {m.problem}"
            print(f"{m.name:<{width}}  {format_bytes(m.size):>9}  {status}  {m.path}", file=out)
    try:
        from .catalog import load_catalog

        installed = {m.name for m in models}
        available = [c for c in load_catalog() if c.name not in installed]
    except TingjiError:
        available = []
    if available:
        from .cache import cached_bytes

        print("available for download (`tingji models download NAME`):", file=out)
        for c in available:
            cached = cached_bytes(c.name)
            resumable = f"  [{format_bytes(cached)} downloaded; downloading again resumes]" if cached else ""
            resumable += f"  [{_hash_note(c.hashes)}]" if c.hashes.state != "published" else ""
            print(f"  {c.name}  {c.title}{resumable}", file=out)


def _hash_note(hashes: HashCount) -> str:
    """What a catalog model's download can be checked against, when it is less than published hashes."""
    if hashes.state == "missing":
        return (f"not checked: the catalog publishes no SHA-256 for {hashes.missing} of {hashes.total} "
                "files; they are pinned once the model verifies")
    return f"checked against SHA-256 pinned by your first download ({hashes.pinned} of {hashes.total})"


def _show_pins(name: str, pinned: dict[str, str], err: TextIO) -> None:
    for path, digest in pinned.items():
        print(f"{path}: not checked (the catalog publishes no SHA-256); pinned {digest} now that the model "
              f"verified; later downloads must match (`tingji models forget-pin {name}` forgets it)", file=err)


def run(args: argparse.Namespace) -> int:
    out, err = sys.stdout, sys.stderr
    reporter = _Reporter(err)
    cancel = threading.Event()
    command = getattr(args, "models_command", None)
    try:
        from . import installed, store
        from .staging import cleanup_incoming

        cleanup_incoming()  # leftovers of installs a crash interrupted; a running install keeps its own
        if command == "list":
            _list(out)
        elif command == "install":
            result = store.install_from_url(args.url, args.sha256, args.name, progress=reporter, cancel=cancel)
            reporter.finish_line()
            print(f"installed {result.name} at {result.path}", file=out)
        elif command == "download":
            from .catalog import load_catalog

            hashes = load_catalog().get(args.name).hashes
            if hashes.state != "published":
                print(f"{args.name}: {_hash_note(hashes)}", file=err)
            result = store.download_catalog_model(args.name, reporter, cancel, install_as=args.install_as)
            reporter.finish_line()
            _show_pins(args.name, result.pinned, err)
            print(f"installed {result.name} at {result.path}", file=out)
        elif command == "import":
            result = store.import_folder(args.dir, args.name, progress=reporter, cancel=cancel)
            reporter.finish_line()
            print(f"installed {result.name} at {result.path}", file=out)
        elif command == "verify":
            manifest = installed.verify(args.name, progress=reporter)
            reporter.finish_line()
            print(f"{args.name}: ok ({len(manifest.files)} files match their SHA-256)", file=out)
        elif command == "remove":
            if not args.yes:
                if not (sys.stdin is not None and sys.stdin.isatty()):
                    print(f"tingji models: not removing {args.name} without --yes", file=err)
                    return 1
                answer = input(f"remove model {args.name}? [y/N] ").strip().lower()
                if answer not in ("y", "yes"):
                    print("not removed", file=err)
                    return 1
            installed.remove(args.name)
            print(f"removed {args.name}", file=out)
        elif command == "forget-pin":
            from .catalog import load_catalog

            forgotten = load_catalog().forget_pins(args.name)
            if forgotten:
                print(f"{args.name}: forgot {len(forgotten)} pinned SHA-256 hash(es); the next download pins anew",
                      file=out)
            else:
                print(f"{args.name}: no SHA-256 hashes are pinned", file=out)
        else:
            print("tingji models: choose a command: list, install, download, import, verify, remove, forget-pin",
                  file=err)
            return 1
        return 0
    except KeyboardInterrupt:
        cancel.set()
        reporter.finish_line()
        print("tingji models: cancelled (a later run resumes the download)", file=err)
        return 1
    except Cancelled:
        reporter.finish_line()
        print("tingji models: cancelled", file=err)
        return 1
    except TingjiError as exc:
        reporter.finish_line()
        print(f"tingji models: {exc}", file=err)
        return 1
    except OSError as exc:
        reporter.finish_line()
        where = f": {exc.filename}" if exc.filename else ""
        print(f"tingji models: {exc.strerror or exc}{where}", file=err)
        return 1
    except Exception as exc:  # a bug: still one line, no traceback
        reporter.finish_line()
        text = " ".join(str(exc).split())
        print(f"tingji models: internal error ({type(exc).__name__}: {text}); please report it", file=err)
        return 1
