"""The `tingji` command line.

`main` is the `tingji` console script (and `python -m tingji`), `gui_main` the
`tingji-gui` one. Inside: `main` (parser, dispatch, errors to exit codes), one
module per subcommand (`transcribe`, `export`, `models`), each with
`add_parser(subparsers)` and `run(args) -> int`, and `progress`, the status line
they share.
"""

from .main import gui_main, main

__all__ = ["main", "gui_main"]
