"""Keeping funasr's progress logging out of the test output without hiding anything else."""

from __future__ import annotations

import logging
from contextlib import contextmanager


@contextmanager
def quiet_root_logger():
    """funasr logs its progress on the root logger; hush it only while it runs.

    Raising the root logger's level for good (as this module once did) made
    every later test's warnings from tingji's loggers vanish, caplog included.
    """
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)
