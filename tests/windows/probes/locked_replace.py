"""tingji.atomic on Windows: replacing a transcript another program holds open (Windows side).

usage: python locked_replace.py FOLDER
Prints one JSON line: what a brief hold (released after 0.3 s) and a lasting hold did.
"""

import json
import sys
import threading
import time
from pathlib import Path

from tingji import atomic


def main(folder: str) -> None:
    path = Path(folder) / "转写 结果.txt"
    atomic.write_text(path, "one")
    held = open(path, encoding="utf-8")  # noqa: SIM115 - held by "another program" for a moment
    threading.Timer(0.3, held.close).start()
    start = time.perf_counter()
    atomic.write_text(path, "two")
    brief = {"text": path.read_text("utf-8"), "s": round(time.perf_counter() - start, 2)}
    with open(path, encoding="utf-8"):
        try:
            atomic.write_text(path, "three")
            lasting = "replaced"
        except PermissionError as exc:
            lasting = f"PermissionError: {exc.strerror}"
    left = sorted(p.name for p in Path(folder).iterdir())
    print(json.dumps({"brief": brief, "lasting": lasting, "text": path.read_text("utf-8"), "left": left}))


if __name__ == "__main__":
    main(sys.argv[1])
