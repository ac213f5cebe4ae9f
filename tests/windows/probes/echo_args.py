"""Echo what a Windows program is given (tools/windows/run's own test).

usage: python echo_args.py IN_FILE OUT_FILE EXIT_CODE [ARG...]
Reads IN_FILE (UTF-8), writes it reversed to OUT_FILE, prints a JSON line with every argument and
the current folder, and exits with EXIT_CODE.
"""

import json
import os
import sys


def main() -> int:
    source, target, code = sys.argv[1:4]
    with open(source, encoding="utf-8") as f:
        text = f.read()
    with open(target, "w", encoding="utf-8") as f:
        f.write(text[::-1])
    print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "platform": sys.platform}))
    print("to stderr", file=sys.stderr)
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
