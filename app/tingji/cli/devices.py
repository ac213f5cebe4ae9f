"""`tingji devices`: the graphics adapters DirectML can run on, in the order `--device` counts them."""

from __future__ import annotations

import argparse
from typing import Any

from ..engine import adapters, messages
from ..errors import TingjiError


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "devices",
        help="list the graphics adapters DirectML can run on (Windows)",
        description="List the graphics adapters DirectML can run on, high-performance first: "
        "`tingji transcribe --device N` takes the number or a part of the name.",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        found = adapters.list_adapters()
    except adapters.AdaptersUnavailable as exc:
        raise TingjiError(messages.NO_ADAPTERS, reason=str(exc)) from None
    default = next(iter(adapters.by_preference(found)), None)
    for a in found:
        memory = f"{a.dedicated_mb / 1024:.1f} GB own memory" if a.dedicated_mb else "shared memory"
        mark = "  (default)" if a is default else ""
        print(f"{a.rank}: {a.label()}, {memory}{mark}")
    return 0
