"""Entry point of the frozen console executable `tingji` (same as the `tingji` console script)."""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from tingji.cli import main

    sys.exit(main())
