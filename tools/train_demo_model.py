#!/usr/bin/env python3
"""Train Tingji's demo model (tools/demo_model/: what it is, how it is trained, and why).

tools/train_demo_model.py --out DIR --seed N [--minutes M]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _extra in (ROOT / "app", ROOT / "tools"):  # run as a script: this checkout's tingji and tools
    if str(_extra) not in sys.path:
        sys.path.insert(0, str(_extra))

from demo_model.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
