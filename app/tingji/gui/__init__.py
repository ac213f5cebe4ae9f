"""The desktop app (Qt). Nothing outside this package imports it except `tingji.cli`.

By feature: `files/` (the Files page and its queue), `dictation/` (the
Dictation page), `models/` (the model dialogs and what the window says about
the models); the modules here are shared by all three and import none of them
(app.py and main_window.py put them together), and the three never import each
other (tests/test_architecture.py). Qt-free modules are marked: they are
usable and testable without a display.

Ownership: every QObject has ONE owner, its Qt parent or else Python. PySide
leaves two kinds of widget Python's although Qt parents them too: a widget put
in a layout that no widget holds yet (a row built before it is nested), and a
dialog after `exec()`. At the interpreter's exit PySide deletes whatever Python
owns, in no set order, and such double owners crashed it ("shared QObject was
deleted directly", then SIGSEGV). So a widget gets its parent when it is made,
a nested layout is added to its installed parent before it is filled, and an
`exec()`ed dialog is `deleteLater()`ed when it returns (tests/gui/test_exit.py
checks the window and its dialogs).

    app.py              the one place the parts are made and joined; run_app() is `tingji` with no arguments
    main_window.py      the frame: toolbar, banners, the pages, status bar, settings, tray, quit
    engine_host.py      EngineHost: a model per use (files, dictation), one ModelEngine per model
                        folder (load, reload, share, release, unload when idle), their states
    engine_worker.py    EngineWorker (the engine thread: load, transcribe files, close); LoadedModel
    model_choice.py     which model folder a use loads (the setting, else the catalog's first for files); no Qt
    threads.py          the one way the app starts and stops worker threads (QThread workers)
    databases.py        opening the SQLite files: a damaged or newer one is set aside, never fatal; no Qt
    faults.py           exceptions nothing caught, in any thread: logged and shown in a dialog
    storage_banner.py   the banner about the databases: set aside at start-up, writes failing
    status_line.py      a status-bar line with a coloured dot (the models', dictation's)
    settings.py         settings.json: load (tolerant) / save (atomic); no Qt
    settings_dialog.py  the Settings dialog
    languages.py        spoken languages by name (translated), the menu of the languages a model knows
    messages.py         the app's own error messages (tingji/errors.py explains the catalogues); no Qt
    errors.py           every error in the UI language, by its code (reports kept in the queue DB)
    banner.py, tray.py, icons.py, theme.py, i18n.py, timefmt.py   look and language
    gc_guard.py         Python's cyclic GC on the GUI thread only

    files/page.py             the Files page: add files/folders, drops, cancel, the selected transcript
    files/controller.py       QueueController: the one place the queue changes
    files/storage.py          the queue and results in SQLite (WAL, a commit per finished file); no Qt
    files/folders.py          what a dropped folder means (media files, recursively); no Qt
    files/export.py           writing transcripts beside sources or to a folder, never over a file
                              Tingji did not write; no Qt
    files/workers.py          ProbeWorker (durations), ScanWorker (folder walks)
    files/queue_model.py      the queue as a QAbstractTableModel + progress delegate
    files/queue_view.py       queue table, empty-state hint, Up/Down/Remove/Retry
    files/scan_status.py      the status-bar busy sign while a dropped folder is walked
    files/transcript_view.py  timed segments, playback, Copy all, Export
    files/model_bar.py        the Files page's strip: its model, and the language spoken (the model's list)
    files/player.py           play one segment (QMediaPlayer, stop at its end)

    dictation/host.py          DictationController on dictation's Engine: start, restart on reload, stop
    dictation/on_demand.py     dictation's handle on the engine: survives an idle unload, a take reloads it
    dictation/panel.py         the Dictation page: Dictate button, history (play/copy/delete)
    dictation/settings_form.py its settings box (hotkey, mode, microphone, overlay, preview, sounds)
    dictation/status.py        the status bar's line about dictation
    dictation/qt_clipboard.py  the clipboard dictation pastes through (thread-safe QClipboard)
    dictation/microphones.py   the input devices the page offers; no Qt

    models/manager.py    the model manager dialog (download, import, verify, remove, use for files/dictation)
    models/picker.py     the first-run model picker (each model's facts, download or import, progress)
    models/facts.py      a catalog model's facts in words (size, speed, languages, best uses)
    models/progress.py   a running model task: stage, progress bar, speed, time left, Cancel
    models/dialogs.py    how the window opens the picker and the manager; a model chosen there becomes settings
    models/status.py     the status bar's line and the banner about the models
    models/uses.py       the texts saying which model runs which use
    models/worker.py     the manager's and the picker's worker thread
"""
