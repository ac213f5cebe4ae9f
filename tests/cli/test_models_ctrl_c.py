"""Ctrl-C in `tingji models install/download` (the end-to-end run with a real SIGINT is
tests/models/test_store.py::test_cli_ctrl_c_exits_130_and_the_same_command_resumes)."""

from __future__ import annotations

import os
import signal

import pytest

from tingji.cli.models import _ctrl_c_cancels
from tingji.errors import Cancelled


def test_ctrl_c_during_a_model_install_sets_the_cancel_flag_then_interrupts() -> None:
    """The first Ctrl-C asks the download to stop at its next check (a flag cannot be dropped the way
    a KeyboardInterrupt landing in a finalizer is), the second interrupts at once, a Cancelled that
    follows becomes the interrupt the CLI reports, and the previous handler is back afterwards."""
    before = signal.getsignal(signal.SIGINT)
    with _ctrl_c_cancels() as cancel:
        os.kill(os.getpid(), signal.SIGINT)
        assert cancel.wait(5)  # the first: the flag, and no exception
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # bytecode boundaries, where Python runs the handler
                pass
    assert signal.getsignal(signal.SIGINT) is before
    with pytest.raises(KeyboardInterrupt):
        with _ctrl_c_cancels():
            raise Cancelled()
    assert signal.getsignal(signal.SIGINT) is before
    print("Ctrl-C once: flag set; twice: KeyboardInterrupt; Cancelled -> KeyboardInterrupt; handler restored")
