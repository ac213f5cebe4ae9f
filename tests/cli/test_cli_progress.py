"""The status line both `tingji transcribe` and `tingji models` draw their progress with.

The terminal is a real pseudo-terminal (raw mode, so the bytes read back are the
bytes written) with a set width; the non-terminal is a real file.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import termios
import tty
from pathlib import Path

import pytest

from tingji.cli.progress import StatusLine


class Terminal:
    """A pseudo-terminal `columns` wide: `stream` is the program's side, `read` the screen's."""

    def __init__(self, columns: int) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        self.stream = open(slave, "w", encoding="utf-8", closefd=True)

    def read(self, expected: str) -> str:
        """What the program wrote, once `expected`'s byte count has arrived (or 5 s passed without a byte)."""
        want = len(expected.encode("utf-8"))
        data = b""
        while len(data) < want and select.select([self.master], [], [], 5.0)[0]:
            data += os.read(self.master, 65536)
        return data.decode("utf-8")

    def close(self) -> None:
        self.stream.close()
        os.close(self.master)


@pytest.fixture
def terminal():
    term = Terminal(columns=30)
    yield term
    term.close()


def test_terminal_redraws_one_line_in_place(terminal):
    status = StatusLine(terminal.stream, interval=3600.0)
    assert status.tty
    status.show("downloading 10%")
    status.show("downloading 20%")  # within the interval: not drawn
    status.show("done 100%", force=True)  # shorter: padded over the old text
    status.finish()
    status.show("verifying")
    status.print("ok")
    status.print("a line of its own")
    expected = "\rdownloading 10%\rdone 100%" + " " * 6 + "\n\rverifying\rok" + " " * 7 + "\na line of its own\n"
    assert terminal.read(expected) == expected
    print(repr(expected))


def test_terminal_line_is_clipped_to_the_width_counting_wide_characters(terminal):
    status = StatusLine(terminal.stream, interval=0.0)
    status.show("会议录音" * 10)  # 80 columns on a 30-column terminal
    status.show("ab")
    status.finish()
    # 29 columns fit (the last one stays free): 14 wide characters; then "ab" pads the 26 it does not cover
    expected = "\r" + "会议录音" * 3 + "会议" + "\rab" + " " * 26 + "\n"
    assert terminal.read(expected) == expected


def test_file_gets_only_the_permanent_lines(tmp_path: Path):
    path = tmp_path / "stderr.txt"
    with open(path, "w", encoding="utf-8") as stream:
        status = StatusLine(stream, interval=0.0)
        assert not status.tty
        status.show("downloading 10%")
        status.print("downloading: 50%")
        status.show("downloading 90%", force=True)
        status.finish()
        status.print("done")
    assert path.read_text(encoding="utf-8") == "downloading: 50%\ndone\n"
