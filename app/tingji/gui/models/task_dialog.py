"""What the model manager and the first-run picker share: one model task at a time on a worker thread.

Both dialogs hand downloads and imports to a `ModelWorker` on a thread of
their own and show a `TaskProgress` line. The rules that keep that safe live
here once: a second task never starts while one runs; Cancel sets the task's
event (the queue cannot reach a busy worker); closing the dialog during a task
cancels it and closes only when the worker has stopped, so no install is cut
off half-written by the window going away.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QWidget

from ...errors import TingjiError
from ..threads import start_worker, stop_threads
from .progress import TaskProgress
from .worker import ModelWorker, Task


class ModelTaskDialog(QDialog):
    """A dialog with a model worker. Subclasses build `task_box` and the outcome slots."""

    _run = Signal(object)  # Task -> the worker's thread (queued)

    def __init__(self, parent: QWidget | None, thread_name: str) -> None:
        super().__init__(parent)
        self.task_box = TaskProgress()
        self.task_box.cancel_button.clicked.connect(self.cancel_task)
        self._task: Task | None = None
        self._close_result: int | None = None
        self._worker = ModelWorker()
        self._worker.progress.connect(self._on_progress)
        self._worker.finished.connect(self._on_finished)
        self._worker.failed.connect(self._on_failed)
        self._worker.cancelled.connect(self._on_cancelled)
        self._run.connect(self._worker.run)
        self._thread = start_worker(self._worker, thread_name)

    # -- what subclasses show -------------------------------------------------------------------

    def _update(self) -> None:
        """Enable what can be done now (`idle` below); called whenever a task starts or ends."""

    def _begin(self, task: Task) -> None:
        """Say what is starting, before the progress line appears."""

    def _on_finished(self, task: Task, result: object) -> None:
        raise NotImplementedError

    def _on_failed(self, task: Task, error: TingjiError) -> None:
        raise NotImplementedError

    def _on_cancelled(self, task: Task) -> None:
        raise NotImplementedError

    # -- running tasks ---------------------------------------------------------------------------

    @property
    def idle(self) -> bool:
        """No task runs and none is being cancelled for a close."""
        return self._task is None and self._close_result is None

    @property
    def busy(self) -> bool:
        return self._task is not None

    def start(self, task: Task) -> None:
        """Hand a task to the worker thread (one at a time)."""
        if not self.idle:
            return
        self._task = task
        self._begin(task)
        self.task_box.begin()
        self._update()
        self._run.emit(task)  # queued: `run` executes in the worker's thread

    def cancel_task(self) -> None:
        if self._task is not None:
            self._task.cancel.set()
            self.task_box.cancelling()

    def _on_progress(self, stage: str, done: int, total: int | None, bps: float) -> None:
        if self._task is not None and not self._task.cancel.is_set():
            self.task_box.show_progress(stage, done, total, bps)

    def _end_task(self) -> bool:
        """The task has ended; True when that let a pending close go ahead (the dialog is gone)."""
        self._task = None
        self.task_box.hide()
        if self._close_result is None:
            return False
        result, self._close_result = self._close_result, None
        self._finish(result)
        return True

    # -- closing -----------------------------------------------------------------------------------

    def done(self, result: int) -> None:
        """Close; a running task is cancelled first and the dialog closes when it has stopped."""
        if self._task is not None:
            self._close_result = result
            self.cancel_task()
            self._update()
            return
        self._finish(result)

    def _finish(self, result: int) -> None:
        stop_threads([self._thread])  # no task runs now: it ends at once
        super().done(result)

    def shutdown(self) -> None:
        """The app is quitting: cancel a running task, wait for the worker's thread, close."""
        if self._task is not None:
            self._task.cancel.set()
        stop_threads([self._thread])
        self._task = None
        super().done(QDialog.DialogCode.Rejected)
