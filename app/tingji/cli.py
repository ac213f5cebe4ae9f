"""The `tingji` command: subcommands, or the desktop app when run bare."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    print("tingji: not implemented yet", file=sys.stderr)
    return 2


def gui_main() -> int:
    return main([])
