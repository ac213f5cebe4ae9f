"""`tingji models ...`: list, install, download, import, verify and remove models, forget pinned hashes.

Results go to stdout, progress to stderr (one updating line with the speed on
a terminal; on a pipe a line per stage and per 10 %). Failures are raised for
`main` to report like every other command's.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from .progress import StatusLine

if TYPE_CHECKING:
    from ..models.catalog import HashCount


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "models",
        help="list, download, install, import, verify or remove models",
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
    p = sub.add_parser(
        "import",
        help="install a copy of a model folder or a pre-converted release, or convert an official checkpoint folder",
    )
    p.add_argument("dir")
    p.add_argument("--name", help="name to install it under (default: the folder's name)")
    p = sub.add_parser("verify", help="check every file of an installed model against its SHA-256")
    p.add_argument("name")
    p = sub.add_parser("remove", help="delete an installed model")
    p.add_argument("name")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p = sub.add_parser(
        "forget-pin",
        help="forget the SHA-256 hashes pinned by a catalog model's first download",
        description="A catalog model without published hashes gets its hashes pinned by the "
        "first download that installs; later downloads must match them. Forget them when the "
        "model was legitimately updated; the next download pins anew.",
    )
    p.add_argument("name")
    parser.set_defaults(run=run)


class _StageProgress:
    """The model manager's `(stage, done, total, bytes_per_second)` reports as status lines."""

    def __init__(self, status: StatusLine) -> None:
        self.status = status
        self.stage: str | None = None
        self.last_decile = -1

    def __call__(self, stage: str, done: int, total: int | None, bps: float) -> None:
        from ..models.diskspace import format_bytes

        if stage != self.stage:
            self.status.finish()
            self.stage = stage
            self.last_decile = -1
            if not self.status.tty:
                self.status.print(f"{stage} ...")
        amount = f"{format_bytes(done)} of {format_bytes(total)}" if total else format_bytes(done)
        percent = f"{100 * done / total:5.1f}% " if total else ""
        speed = f", {format_bytes(bps)}/s" if bps > 0 else ""
        if self.status.tty:
            line = f"{stage}: {percent}{amount}{speed}" if total or done else f"{stage} ..."
            self.status.show(line, force=bool(total and done >= total))
        elif total:
            decile = min(10, int(10 * done / total))
            if decile > self.last_decile:
                self.last_decile = decile
                self.status.print(f"{stage}: {percent.strip()} {amount}{speed}")


def _list(args: argparse.Namespace, progress: _StageProgress) -> None:
    from ..errors import TingjiError
    from ..models.cache import cached_bytes
    from ..models.catalog import load_catalog
    from ..models.diskspace import format_bytes
    from ..models.installed import list_models

    out = sys.stdout
    models = list_models()
    if not models:
        print("no models installed", file=out)
    else:
        width = max(len(m.name) for m in models)
        for m in models:
            status = "ok" if m.manifest_ok else f"BROKEN: {m.problem}"
            print(f"{m.name:<{width}}  {format_bytes(m.size):>9}  {status}  {m.path}", file=out)
    try:
        installed = {m.name for m in models}
        available = [c for c in load_catalog() if c.name not in installed]
    except TingjiError:  # a broken catalog must not hide the installed models listed above
        available = []
    if available:
        print("available for download (`tingji models download NAME`):", file=out)
        for c in available:
            cached = cached_bytes(c.name)
            resumable = f"  [{format_bytes(cached)} downloaded; downloading again resumes]" if cached else ""
            resumable += f"  [{_hash_note(c.hashes)}]" if c.hashes.state != "published" else ""
            print(f"  {c.name}  {c.title}{resumable}", file=out)


def _install(args: argparse.Namespace, progress: _StageProgress) -> None:
    from ..models.store import install_from_url

    with _ctrl_c_cancels() as cancel:
        result = install_from_url(args.url, args.sha256, args.name, progress=progress, cancel=cancel)
    progress.status.finish()
    print(f"installed {result.name} at {result.path}")


def _download(args: argparse.Namespace, progress: _StageProgress) -> None:
    from ..models.catalog import load_catalog
    from ..models.store import download_catalog_model

    hashes = load_catalog().get(args.name).hashes
    if hashes.state != "published":
        print(f"{args.name}: {_hash_note(hashes)}", file=sys.stderr)
    with _ctrl_c_cancels() as cancel:
        result = download_catalog_model(args.name, progress, cancel, install_as=args.install_as)
    progress.status.finish()
    _show_pins(args.name, result.pinned, sys.stderr)
    print(f"installed {result.name} at {result.path}")


@contextmanager
def _ctrl_c_cancels() -> Iterator[threading.Event]:
    """Ctrl-C sets the returned event (the download and install stop at their next check, keeping
    what they fetched); a second Ctrl-C interrupts at once.

    Not left to KeyboardInterrupt alone: Python raises it wherever the main
    thread happens to be, and one that lands in a finalizer is printed and
    dropped - a full test run saw an interrupted install carry on and finish.
    A flag cannot be dropped, and the download's watchdog acts on it even
    while a read is blocked on a silent server.
    """
    from ..errors import Cancelled

    cancel = threading.Event()

    def on_sigint(signum: int, frame: object) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()

    try:
        previous = signal.signal(signal.SIGINT, on_sigint)
        installed = True
    except ValueError:  # not the main thread (an embedding caller): keep its handling
        installed = False
    try:
        yield cancel
    except Cancelled:
        raise KeyboardInterrupt from None
    finally:
        if installed:
            signal.signal(signal.SIGINT, previous)


def _hash_note(hashes: HashCount) -> str:
    """What a catalog model's download can be checked against, when it is less than published hashes."""
    if hashes.state == "missing":
        return (
            f"not checked: the catalog publishes no SHA-256 for {hashes.missing} of {hashes.total} "
            "files; they are pinned once the model verifies"
        )
    return f"checked against SHA-256 pinned by your first download ({hashes.pinned} of {hashes.total})"


def _show_pins(name: str, pinned: dict[str, str], err: TextIO) -> None:
    for path, digest in pinned.items():
        print(
            f"{path}: not checked (the catalog publishes no SHA-256); pinned {digest} now that the model "
            f"verified; later downloads must match (`tingji models forget-pin {name}` forgets it)",
            file=err,
        )


def _forget_pin(args: argparse.Namespace, progress: _StageProgress) -> None:
    from ..models.catalog import load_catalog

    forgotten = load_catalog().forget_pins(args.name)
    if forgotten:
        print(f"{args.name}: forgot {len(forgotten)} pinned SHA-256 hash(es); the next download pins anew")
    else:
        print(f"{args.name}: no SHA-256 hashes are pinned")


def _import(args: argparse.Namespace, progress: _StageProgress) -> None:
    from ..models.store import import_folder

    result = import_folder(args.dir, args.name, progress=progress)
    progress.status.finish()
    print(f"installed {result.name} at {result.path}")


def _verify(args: argparse.Namespace, progress: _StageProgress) -> None:
    from ..models.installed import verify

    manifest = verify(args.name, progress=progress)
    progress.status.finish()
    print(f"{args.name}: ok ({len(manifest.files)} files match their SHA-256)")


def _remove(args: argparse.Namespace, progress: _StageProgress) -> None:
    from ..errors import TingjiError
    from ..models.installed import remove
    from . import messages

    if not args.yes:
        if not (sys.stdin is not None and sys.stdin.isatty()):
            raise TingjiError(messages.REMOVE_NEEDS_YES, name=args.name)
        answer = input(f"remove model {args.name}? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            raise TingjiError(messages.NOT_REMOVED, name=args.name)
    remove(args.name)
    print(f"removed {args.name}")


_COMMANDS: dict[str, Callable[[argparse.Namespace, _StageProgress], None]] = {
    "list": _list,
    "install": _install,
    "download": _download,
    "import": _import,
    "verify": _verify,
    "remove": _remove,
    "forget-pin": _forget_pin,
}
_RESUMABLE = ("install", "download")  # what a download already fetched stays in the cache


def run(args: argparse.Namespace) -> int:
    from ..models.staging import cleanup_incoming

    cleanup_incoming()  # leftovers of installs a crash interrupted; a running install keeps its own
    progress = _StageProgress(StatusLine(sys.stderr))
    try:
        _COMMANDS[args.models_command](args, progress)
    except KeyboardInterrupt:
        if args.models_command in _RESUMABLE:
            raise KeyboardInterrupt("interrupted (running the same command again resumes the download)") from None
        raise
    finally:
        progress.status.finish()
    return 0
