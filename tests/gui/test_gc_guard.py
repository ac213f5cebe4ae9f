"""tingji.gui.gc_guard: cyclic garbage is collected on the GUI thread only, and still collected."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from tingji.gui import gc_guard

pytestmark = pytest.mark.gui


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_cycles_are_collected_by_the_gui_thread_timer(qapp, qtbot) -> None:
    collector = gc_guard.install(qapp)
    assert gc_guard.install(qapp) is collector  # one per application
    assert not gc.isenabled()

    seen_threads: list[str] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            seen_threads.append(threading.current_thread().name)

    gc.callbacks.append(note)
    try:
        probe = _Node()
        gone = weakref.ref(probe)
        del probe

        def churn() -> None:  # a worker allocating far past every threshold
            for _ in range(50_000):
                _Node()

        worker = threading.Thread(target=churn, name="churn")
        worker.start()
        worker.join()
        assert gone() is not None  # the worker's allocations did not trigger a collection
        assert "churn" not in seen_threads
        qtbot.waitUntil(lambda: gone() is None, timeout=5000)
    finally:
        gc.callbacks.remove(note)
    assert seen_threads and set(seen_threads) == {threading.main_thread().name}
