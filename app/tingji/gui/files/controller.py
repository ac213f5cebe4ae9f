"""The queue controller: the one place where the queue changes.

It joins the store (what is durable), the queue model (what is shown), the
engine host (what runs the files) and the settings. Widgets call its methods
and listen to its signals; they never talk to the store or the workers
directly. All of it runs in the GUI thread; the workers only send signals
back.

Life of a file: add -> probe (duration, or an error row at once) -> waiting
-> dispatched when the engine is ready and nothing else runs -> done (result
committed, auto-exported) | failed (reason) | cancelled (partial kept).

The queue runs from the model (what is shown), and every change is written to
the store as it happens. A write that fails (disk full, a damaged file) never
stops the queue: the change is shown all the same, the next file starts, a
finished transcript the store could not keep stays in memory (shown, exported
next to the source when auto-export is on, or saved to a folder the user
picks: `save_unsaved`), `storageChanged` tells the window, and the memory is
written to the store as soon as a write works again.

Dropped folders are walked on a worker thread (ScanWorker); their files are
queued when the walk ends, in the order the drops came.

The engine itself (loading, which model, sharing it with dictation) is
`gui.engine_host.EngineHost`; the controller sends it files while it is
ready and hears back from its worker.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from ...engine.speakers.labels import rename_speaker
from ...engine.speakers.library import VoiceLibrary, clean_name
from ...engine.transcript import Segment, Transcript
from ...errors import ErrorReport, TingjiError
from ...paths import voices_dir
from ..engine_host import EngineHost, EngineState
from ..engine_worker import Request
from ..errors import localized
from ..settings import Settings
from ..speakers import speaker_name
from ..threads import start_worker, stop_threads
from .export import export_beside_source, save_to_folder
from .folders import expand, has_folder
from .queue_model import QueueModel
from .storage import Job, Status, Store, WrittenFile, incompleteness, warning_columns
from .workers import ProbeWorker, ScanWorker

log = logging.getLogger(__name__)


SYNC_ADD_LIMIT = 64  # up to this many plain files are queued at once, on the GUI thread
# What a file waiting again (retried) no longer has: its last run's outcome.
NO_OUTCOME = dict.fromkeys(("error", "error_code", "warning", "warning_code", "finished_at", "elapsed_s"))


class QueueController(QObject):
    jobChanged = Signal(int)  # a job's status or result changed
    liveSegments = Signal(int)  # the running job produced new segments
    queueFinished = Signal(int, int)  # files done, files failed since the queue last started
    notice = Signal(str)  # a transient message for the status bar
    scanChanged = Signal()  # a folder walk started, progressed or ended: read `scanning`, `scan_found`
    scanFinished = Signal(list)  # the jobs a folder walk queued (maybe none); not sent when cancelled
    storageChanged = Signal()  # a write to the queue database failed or works again: read storage_error, unsaved_count

    _requestProbe = Signal(int, str)
    _requestScan = Signal(int, list, object)

    def __init__(self, store: Store, engine: EngineHost, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.engine = engine
        self.settings = settings
        self.model = QueueModel(self)
        self.scan_found = 0  # media files found so far by the running folder walk
        self._scans: dict[int, threading.Event] = {}  # folder walks queued or running
        self._scan_seq = 0
        self._current: Request | None = None
        self._live: dict[int, list[Segment]] = {}
        self._remove_after_cancel: set[int] = set()
        self._batch = [0, 0]  # done, failed since the queue went busy
        self._closing = False
        self.storage_error = ""  # SQLite's words for the last failed write, until one works again
        self._unsaved: dict[int, Transcript] = {}  # results the store could not keep (done or cancelled)

        worker = engine.files_lane
        worker.progress.connect(self._on_progress)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        engine.stateChanged.connect(self._dispatch)

        # Parentless: they move to their threads.
        self._prober = ProbeWorker()
        self._scanner = ScanWorker()
        self._requestScan.connect(self._scanner.scan)
        self._scanner.progress.connect(self._on_scan_progress)
        self._scanner.done.connect(self._on_scan_done)
        self._requestProbe.connect(self._prober.probe)
        self._prober.probed.connect(self._on_probed)
        self._prober.bad.connect(self._on_bad_file)
        self._threads = [start_worker(self._prober, "tingji-probe"), start_worker(self._scanner, "tingji-scan")]

        self.model.filesDropped.connect(self.add_paths)
        self.model.reorderRequested.connect(self.reorder)
        if store.recover():
            log.info("resuming files that were being transcribed when the app stopped")
        self.model.set_jobs(store.jobs())
        for job in self.model.jobs():
            if job.status is Status.WAITING and job.duration is None:
                self._requestProbe.emit(job.id, job.path)

    def apply_settings(self, new: Settings) -> None:
        """Take new settings: the next file runs with their transcribe options, results export by them."""
        self.settings = new

    # -- queue operations ----------------------------------------------------------------

    def add_paths(self, paths: Sequence[str]) -> list[Job]:
        """Queue files; files already waiting are skipped. Returns the new jobs.

        Folders expand to the media inside them on the scan thread: then this
        returns [] at once and `scanFinished` brings the jobs."""
        paths = [os.fspath(p) for p in paths]
        # Many paths (a stat each, maybe on a slow share), a folder, or a walk already under
        # way (then behind it, to keep the drop order): on the scan thread.
        if self._scans or len(paths) > SYNC_ADD_LIMIT or has_folder(paths):
            self._scan_seq += 1
            self._scans[self._scan_seq] = cancel = threading.Event()
            self._requestScan.emit(self._scan_seq, paths, cancel)
            self.scanChanged.emit()
            return []
        return self._queue_files(expand(paths))

    @property
    def scanning(self) -> bool:
        return bool(self._scans)

    def cancel_scan(self) -> None:
        """Stop the folder walks under way; nothing they found is queued."""
        for cancel in self._scans.values():
            cancel.set()

    def _on_scan_progress(self, seq: int, found: int) -> None:
        if seq in self._scans:
            self.scan_found = found
            self.scanChanged.emit()

    def _on_scan_done(self, seq: int, paths: list) -> None:
        cancel = self._scans.pop(seq, None)
        if cancel is None or self._closing:
            return
        self.scan_found = 0
        self.scanChanged.emit()
        if not cancel.is_set():  # cancelled: the user knows nothing was added
            self.scanFinished.emit(self._queue_files(paths))

    def _queue_files(self, expanded: Sequence[str]) -> list[Job]:
        pending = {os.path.normcase(j.path) for j in self.model.jobs() if j.status in (Status.WAITING, Status.RUNNING)}
        new = [p for p in expanded if os.path.normcase(p) not in pending]
        if not new:
            return []
        try:
            jobs = self.store.add(new)  # the jobs' ids come from the database: nothing to queue without it
        except sqlite3.Error as exc:
            self._storage_fault("add files", exc)
            return []
        self.model.append_jobs(jobs)
        for job in jobs:
            self._requestProbe.emit(job.id, job.path)
        self._dispatch()
        return jobs

    def cancel(self, job_ids: Sequence[int]) -> None:
        for job_id in job_ids:
            job = self.model.job_by_id(job_id)
            if job is None:
                continue
            if self._current is not None and self._current.job_id == job_id:
                self._current.cancel.set()  # the worker answers with `cancelled`
            elif job.status is Status.WAITING:
                self._persist("cancel a file", self.store.cancel, job_id)
                self._show(job_id, status=Status.CANCELLED, finished_at=time.time())

    def cancel_all(self) -> None:
        self.cancel([j.id for j in self.model.jobs() if j.status in (Status.WAITING, Status.RUNNING)])

    def remove(self, job_ids: Sequence[int]) -> None:
        """Forget files (and their results). A running file is cancelled first, then removed."""
        running = self._current.job_id if self._current is not None else None
        gone = [i for i in job_ids if i != running]
        if running in job_ids:
            self._remove_after_cancel.add(running)
            self.cancel([running])
        self._persist("remove files", self.store.remove, gone)
        self._forget(gone)

    def retry(self, job_ids: Sequence[int]) -> None:
        ids = [i for i in job_ids if (j := self.model.job_by_id(i)) is not None and j.status.finished]
        self._persist("retry files", self.store.requeue, ids)
        for job_id in ids:
            self._drop_unsaved(job_id)
            job = self._show(job_id, status=Status.WAITING, **NO_OUTCOME)
            if job is not None and job.duration is None:
                self._requestProbe.emit(job.id, job.path)
        self._dispatch()

    def move(self, job_id: int, delta: int) -> None:
        order = [j.id for j in self.model.jobs()]
        i = order.index(job_id) if job_id in order else -1
        j = i + delta
        if i < 0 or not 0 <= j < len(order):
            return
        order[i], order[j] = order[j], order[i]
        self._apply_order(order)

    def reorder(self, job_ids: Sequence[int], before_row: int) -> None:
        """Move waiting files so they sit before `before_row` (-1: at the end)."""
        jobs = self.model.jobs()
        moving = [i for i in job_ids if (j := self.model.job_by_id(i)) is not None and j.status is Status.WAITING]
        if not moving:
            return
        before_row = len(jobs) if before_row < 0 else before_row
        rest = [j.id for j in jobs if j.id not in moving]
        at = sum(1 for j in jobs[:before_row] if j.id not in moving)
        self._apply_order(rest[:at] + moving + rest[at:])

    def _apply_order(self, order: list[int]) -> None:
        """`order` holds every job: positions 1..n, in the store and on screen."""
        self._persist("reorder files", self.store.reorder, order)
        by_id = {j.id: j for j in self.model.jobs()}
        self.model.reorder([replace(by_id[i], position=float(n)) for n, i in enumerate(order, 1)])

    # -- speakers ------------------------------------------------------------------------------

    def set_speakers(self, job_ids: Sequence[int], speakers: str | None) -> None:
        """Files' own "Identify speakers" ("off", "auto", "2".."8"; None: as in Settings), for their next run."""
        self._persist("save a file's speaker choice", self.store.set_speakers, job_ids, speakers)
        for job_id in job_ids:
            self._show(job_id, speakers=speakers)

    def rename_speaker(self, job_id: int, speaker: int, name: str) -> bool:
        """Rename one speaker in every segment of a file's transcript (a name another speaker there has makes
        them one), kept in the store; False (and a notice) when the name is not one."""
        transcript = self.transcript(job_id)
        if transcript is None or not 0 <= speaker < len(transcript.speakers):
            return False
        try:
            rename_speaker(transcript, speaker, clean_name(name))
        except TingjiError as exc:
            self.notice.emit(localized(exc))
            return False
        self._keep_edit(job_id, transcript)
        return True

    def remember_voice(self, job_id: int, speaker: int, name: str) -> bool:
        """Store a speaker's voice print in the voice library under `name` (and name the speaker so here);
        False (and a notice) when it cannot be."""
        transcript = self.transcript(job_id)
        if transcript is None or not 0 <= speaker < len(transcript.voice_prints):
            return False
        try:
            voice = VoiceLibrary(voices_dir()).remember(name, transcript.voice_prints[speaker])
        except TingjiError as exc:
            self.notice.emit(localized(exc))
            return False
        if transcript.speakers[speaker] != voice.name:
            self.rename_speaker(job_id, speaker, voice.name)
        self.notice.emit(self.tr("Remembered the voice of {0}: later files name it.").format(voice.name))
        return True

    def _keep_edit(self, job_id: int, transcript: Transcript) -> None:
        """An edited transcript: into the store, else kept in memory with the unsaved ones."""
        job = self.model.job_by_id(job_id)
        if job is not None and job_id not in self._unsaved:
            if self._persist("save a renamed speaker", self.store.save_transcript, job_id, transcript):
                self.jobChanged.emit(job_id)
                return
        self._keep_unsaved(job_id, transcript)
        self.jobChanged.emit(job_id)

    # -- what the views read ---------------------------------------------------------------

    def transcript(self, job_id: int) -> Transcript | None:
        """The job's transcript: the one the store could not keep, else the stored one."""
        if job_id in self._unsaved:
            return self._unsaved[job_id]
        try:
            return self.store.transcript(job_id)
        except sqlite3.Error as exc:
            self._storage_fault("read a transcript", exc)
            return None

    def live_segments(self, job_id: int) -> list[Segment] | None:
        return self._live.get(job_id)

    def is_unsaved(self, job_id: int) -> bool:
        """True when the store failed to keep the job's transcript (it is in memory; maybe exported too)."""
        return job_id in self._unsaved

    @property
    def unsaved_count(self) -> int:
        """Transcripts that exist only in memory: the store could not keep them, and no export has them."""
        return sum(1 for i in self._unsaved if (job := self.model.job_by_id(i)) is not None and not job.exported)

    @property
    def busy(self) -> bool:
        return self._current is not None

    # -- storage faults: the queue goes on in memory ------------------------------------------

    def _persist(self, what: str, write: Callable[..., object], *args: object) -> bool:
        """Run one store write; on a storage fault say so and return False. The caller shows the
        change all the same: the model, not the store, is what the queue runs from."""
        try:
            write(*args)
        except sqlite3.Error as exc:
            self._storage_fault(what, exc)
            return False
        return True

    def _storage_fault(self, what: str, exc: sqlite3.Error) -> None:
        log.error("queue database %s: cannot %s: %s", self.store.path, what, exc)
        self.storage_error = str(exc)
        self.storageChanged.emit()

    def _keep_unsaved(self, job_id: int, transcript: Transcript) -> None:
        self._unsaved[job_id] = transcript
        self.storageChanged.emit()

    def _drop_unsaved(self, job_id: int) -> None:
        if self._unsaved.pop(job_id, None) is not None:
            self.storageChanged.emit()

    def _store_unsaved(self) -> None:
        """A write worked again: put the transcripts kept in memory into the store too."""
        for job_id, transcript in list(self._unsaved.items()):
            job = self.model.job_by_id(job_id)
            if job is None:
                continue
            if job.status is Status.DONE:
                ok = self._persist("save a transcript", self.store.finish, job_id, transcript, job.elapsed_s)
            else:
                ok = self._persist("save a partial transcript", self.store.cancel, job_id, transcript)
            if not ok:
                return
            self._drop_unsaved(job_id)
        if self.storage_error:
            self.storage_error = ""
            self.storageChanged.emit()

    def save_unsaved(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write the transcripts the store could not keep into `folder` (the app's formats; never
        replacing a file). They stay in memory too. OSError/TingjiError when the folder fails."""
        items = [(job.path, self._unsaved[job.id]) for job in self.model.jobs() if job.id in self._unsaved]
        return save_to_folder(items, Path(folder), self.settings.formats)

    # -- dispatching and results -----------------------------------------------------------

    def _show(self, job_id: int, **changes: object) -> Job | None:
        """Apply a change to the job on screen (the store was written first, or failed)."""
        job = self.model.job_by_id(job_id)
        if job is None:
            return None
        job = replace(job, **changes)
        self.model.update_job(job)
        self.jobChanged.emit(job_id)
        return job

    def _forget(self, job_ids: Sequence[int]) -> None:
        for job_id in job_ids:
            self._drop_unsaved(job_id)
        self.model.remove_ids(job_ids)

    def _dispatch(self) -> None:
        if self._current is not None or self._closing:
            return
        job = next((j for j in self.model.jobs() if j.status is Status.WAITING), None)
        if job is None:
            if any(self._batch):
                self.queueFinished.emit(*self._batch)
                self._batch = [0, 0]
            return
        state = self.engine.state_of("files")
        if state is EngineState.UNLOADED:  # unloaded while idle: this file brings it back
            self.engine.ensure_loaded("files")
            self.notice.emit(self.tr("Loading the model again for {0}…").format(job.name))
            return
        if state is not EngineState.READY:
            return
        self.engine.hold("files")
        self._current = Request(job.id, job.path, self.settings.files_options(job.speakers))
        self._live[job.id] = []
        self._persist("start a file", self.store.start, job.id)
        self._show(job.id, status=Status.RUNNING, error=None, error_code=None, warning=None, warning_code=None)
        self.model.set_fraction(job.id, 0.0)
        self.engine.transcribe(self._current)

    def _done_with(self, job_id: int) -> bool:
        """Clear the running slot; False when the signal is stale, the app is closing, or the
        file was removed while running (then it is deleted now, whatever the outcome)."""
        if self._closing or self._current is None or self._current.job_id != job_id:
            return False
        self._current = None
        self._live.pop(job_id, None)
        self.engine.let_go("files")
        if job_id in self._remove_after_cancel:
            self._remove_after_cancel.discard(job_id)
            self._persist("remove a file", self.store.remove, [job_id])
            self._forget([job_id])
            self._dispatch()
            return False
        return True

    def _on_progress(self, job_id: int, fraction: float, segments: list) -> None:
        if self._current is None or self._current.job_id != job_id:
            return
        self._live.setdefault(job_id, []).extend(segments)
        if fraction >= 0:
            self.model.set_fraction(job_id, fraction)
        self.liveSegments.emit(job_id)

    def _on_finished(self, job_id: int, transcript: Transcript, elapsed: float) -> None:
        if not self._done_with(job_id):
            return
        try:
            transcript.speakers = [speaker_name(n) for n in transcript.speakers]  # "Speaker 2" in the UI's language
            # Committed before anything else happens; if the store cannot keep it, memory does.
            if self._persist("save a transcript", self.store.finish, job_id, transcript, elapsed):
                self._store_unsaved()
            else:
                self._keep_unsaved(job_id, transcript)
            self._batch[0] += 1
            before = self.model.job_by_id(job_id)
            duration = before.duration if before is not None and before.duration is not None else transcript.duration
            warning, warning_code = warning_columns(incompleteness(transcript))
            job = self._show(
                job_id,
                status=Status.DONE,
                error=None,
                error_code=None,
                warning=warning,
                warning_code=warning_code,
                finished_at=time.time(),
                elapsed_s=elapsed,
                duration=duration,
            )
            if self.settings.auto_export and job is not None:
                self._auto_export(job, transcript)
        finally:
            self._dispatch()  # whatever happened above, the next file starts

    def _auto_export(self, job: Job, transcript: Transcript) -> None:
        """Write the transcript beside its source, never over a file Tingji did not write for it,
        and say which names were used."""
        try:
            paths = export_beside_source(transcript, job.path, self.settings.formats, self._written)
        except (OSError, TingjiError) as exc:  # a read-only folder must not stop the queue
            reason = localized(exc) if isinstance(exc, TingjiError) else exc.strerror or str(exc)
            self.notice.emit(self.tr("{0} was not exported: {1}").format(job.name, reason))
            return
        self._persist("remember the exported files", self.store.record_written, job.id, job.path, paths)
        self._show(job.id, exported=tuple(str(p) for p in paths))
        if job.id in self._unsaved:
            self.storageChanged.emit()  # exported: no longer only in memory
        self.notice.emit(self.tr("Saved {0} beside {1}").format(", ".join(p.name for p in paths), job.name))

    def _written(self, path: Path) -> WrittenFile | None:
        try:
            return self.store.written(path)
        except sqlite3.Error as exc:  # then nothing counts as Tingji's: a new name is chosen
            self._storage_fault("read which files it exported", exc)
            return None

    def _on_failed(self, job_id: int, problem: ErrorReport) -> None:
        if not self._done_with(job_id):
            return
        self._fail(job_id, problem)
        self._dispatch()

    def _fail(self, job_id: int, problem: ErrorReport) -> None:
        """Stored and shown failed, with the reason (its code, so that it is shown in the UI language)."""
        self._persist("mark a file failed", self.store.fail, job_id, problem.text, problem.to_json())
        self._batch[1] += 1
        self._show(
            job_id, status=Status.FAILED, error=problem.text, error_code=problem.to_json(), finished_at=time.time()
        )

    def _on_cancelled(self, job_id: int, partial: Transcript | None) -> None:
        if not self._done_with(job_id):
            return
        if (
            not self._persist("keep a partial transcript", self.store.cancel, job_id, partial)
            and partial is not None
            and partial.segments
        ):
            self._keep_unsaved(job_id, partial)
        self._show(job_id, status=Status.CANCELLED, finished_at=time.time())
        self._dispatch()

    def _on_probed(self, job_id: int, duration: float) -> None:
        if self._closing:
            return
        value = duration if duration >= 0 else None
        self._persist("save a duration", self.store.set_duration, job_id, value)
        job = self.model.job_by_id(job_id)
        if job is not None:
            self.model.update_job(replace(job, duration=value))

    def _on_bad_file(self, job_id: int, problem: ErrorReport) -> None:
        """Not media: an error row at once, unless the engine already picked the file up."""
        if self._closing:
            return
        job = self.model.job_by_id(job_id)
        if job is None or job.status is not Status.WAITING:
            return
        self._fail(job_id, problem)

    # -- shutdown ------------------------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """True once shutdown() has ended the probe and scan threads."""
        return all(t.isFinished() for t in self._threads)

    def shutdown(self) -> None:
        """Cancel the running file, stop the workers and close the store. The file mid-way stays
        "transcribing" in the store on purpose: the next start puts it back to waiting and runs it
        again. (The engine thread is the EngineHost's to stop, after this.)"""
        if self._closing:
            return
        self._closing = True
        if self._current is not None:
            self._current.cancel.set()
        self.cancel_scan()
        stop_threads(self._threads)
        self.store.close()
