"""Entry point of the frozen windowed executable `tingji-gui` (same as the `tingji-gui` GUI script).

The spec builds this executable from the console executable's analysis (see
tingji.spec), so it must import nothing that entry_cli.py does not reach.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from tingji.cli import gui_main

    sys.exit(gui_main())
