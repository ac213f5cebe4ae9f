"""Put every error message into the Chinese translation file and compile it.

    python3 tools/translations.py            # the "Errors" context from the catalogues, then the .qm
    python3 tools/translations.py --lupdate  # first pyside6-lupdate for the GUI's own texts
    python3 tools/translations.py --check    # exit 1 while a message lacks a finished translation

Why a tool: error messages are `Message` constants in each package's
`messages.py` (tingji/errors.py), not literal `tr()` calls, so
`pyside6-lupdate` cannot find them (and marks their entries vanished). This
rewrites the .ts's "Errors" context from the catalogues: one entry per
message, its English text as the source and its code as the
disambiguation comment (what `gui/errors.py` asks the translator with).
A translation is kept by its code; when the English text of a code changed,
the old translation is kept but marked unfinished, so lrelease leaves it out
(the English is shown) until someone checks it. Entries of codes that no
longer exist are dropped. Run it after lupdate, never before: lupdate would
mark these entries vanished again.

Translating: edit the "Errors" entries marked `type="unfinished"` in
app/tingji/gui/i18n/tingji_zh_CN.ts (keep every `{field}` exactly as in the
English, its conversion and format spec included), remove the mark, and run
this again to compile the .qm.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "app"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tingji.errors import Message, catalogue  # noqa: E402
from tingji.gui.errors import CATALOGUES, CONTEXT  # noqa: E402

TS = ROOT / "app" / "tingji" / "gui" / "i18n" / "tingji_zh_CN.ts"
_BLOCK = re.compile(rf"<context>\s*<name>{CONTEXT}</name>.*?</context>\n", re.S)


@dataclass(frozen=True)
class Entry:
    """One translation the .ts holds for a code: the English it was made for, and whether it is done."""

    source: str
    text: str
    finished: bool


def messages() -> list[Message]:
    """Every message of every catalogue, in catalogue order."""
    return [m for module in CATALOGUES for m in catalogue(module)]


def read_entries(ts_text: str) -> dict[str, Entry]:
    """The "Errors" context's translations by code (entries without a code are from before codes)."""
    match = _BLOCK.search(ts_text)
    if match is None:
        return {}
    found = {}
    for node in ET.fromstring(match.group(0)).iter("message"):
        code = node.findtext("comment")
        translation = node.find("translation")
        if code and translation is not None:
            # lupdate marks these entries "vanished" (no tr() call names them): that says nothing
            # about the translation, only "unfinished" does.
            found[code] = Entry(
                node.findtext("source") or "", translation.text or "", translation.get("type") != "unfinished"
            )
    return found


def errors_block(entries: dict[str, Entry]) -> str:
    """The "Errors" context as lupdate would write it, one entry per catalogue message."""
    lines = ["<context>", f"    <name>{CONTEXT}</name>"]
    for message in messages():
        entry = entries.get(message.code)
        text = entry.text if entry is not None else ""
        finished = entry is not None and entry.finished and entry.source == message.text and bool(text)
        mark = "" if finished else ' type="unfinished"'
        lines += [
            "    <message>",
            f"        <source>{escape(message.text)}</source>",
            f"        <comment>{escape(message.code)}</comment>",
            f"        <translation{mark}>{escape(text)}</translation>",
            "    </message>",
        ]
    return "\n".join(lines + ["</context>"]) + "\n"


def merge(ts_text: str, fill: dict[str, str] | None = None) -> str:
    """The .ts text with its "Errors" context rewritten; `fill` adds finished translations by code."""
    entries = read_entries(ts_text)
    by_code = {m.code: m for m in messages()}
    for code, text in (fill or {}).items():
        entries[code] = Entry(by_code[code].text, text, True)
    block = errors_block(entries)
    if _BLOCK.search(ts_text):
        return _BLOCK.sub(lambda _: block, ts_text, count=1)
    return ts_text.replace("</TS>", block + "</TS>")


def missing(ts_text: str) -> list[Message]:
    """The messages without a finished translation for their current English text."""
    entries = read_entries(ts_text)
    return [m for m in messages() if not ((e := entries.get(m.code)) and e.finished and e.source == m.text and e.text)]


def run(tool: str, *args: str) -> None:
    subprocess.run([tool, *args], check=True, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lupdate", action="store_true", help="run pyside6-lupdate on the GUI's sources first")
    parser.add_argument("--check", action="store_true", help="only report untranslated messages")
    args = parser.parse_args(argv)
    if args.check:
        todo = missing(TS.read_text(encoding="utf-8"))
        for message in todo:
            print(f"untranslated: {message.code}: {message.text}")
        print(f"{len(messages()) - len(todo)} of {len(messages())} error messages translated")
        return 1 if todo else 0
    if args.lupdate:
        gui = ROOT / "app" / "tingji" / "gui"
        run("pyside6-lupdate", *map(str, sorted(gui.glob("*.py")) + sorted(gui.glob("*/*.py"))), "-ts", str(TS))
    TS.write_text(merge(TS.read_text(encoding="utf-8")), encoding="utf-8")
    todo = missing(TS.read_text(encoding="utf-8"))
    print(f"{TS.name}: {len(messages())} error messages, {len(todo)} to translate")
    run("pyside6-lrelease", str(TS), "-qm", str(TS.with_suffix(".qm")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
