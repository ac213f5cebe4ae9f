"""Ctrl-C in `tingji models install/download` (the end-to-end run with a real SIGINT is
tests/models/test_store.py::test_cli_ctrl_c_exits_130_and_the_same_command_resumes)."""

from __future__ import annotations

import signal

import pytest

from tingji.cli.models import _ctrl_c_cancels
from tingji.errors import Cancelled


@pytest.mark.load_sensitive
def test_ctrl_c_during_a_model_install_sets_the_cancel_flag_then_interrupts() -> None:
    """The first Ctrl-C asks the download to stop at its next check (a flag cannot be dropped the way
    a KeyboardInterrupt landing in a finalizer is), the second interrupts at once, a Cancelled that
    follows becomes the interrupt the CLI reports, and the previous handler is back afterwards.

    `signal.raise_signal` delivers to this thread and runs the Python handler before it returns,
    so nothing here waits for the handler to come round (a signal sent to the process may be taken
    by another thread, and the main thread then runs the handler whenever it next checks).
    """
    before = signal.getsignal(signal.SIGINT)
    with _ctrl_c_cancels() as cancel:
        signal.raise_signal(signal.SIGINT)
        assert cancel.is_set()  # the first: the flag, and no exception
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is before
    with pytest.raises(KeyboardInterrupt):
        with _ctrl_c_cancels():
            raise Cancelled()
    assert signal.getsignal(signal.SIGINT) is before
    print("Ctrl-C once: flag set; twice: KeyboardInterrupt; Cancelled -> KeyboardInterrupt; handler restored")
