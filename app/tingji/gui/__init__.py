"""The desktop app (Qt). Nothing outside this package imports it except `tingji.cli`.

Module map (Qt-free modules first; they are usable and testable without a display):

    storage.py          the queue and results in SQLite (WAL, a commit per finished file)
    settings.py         settings.json: load (tolerant) / save (atomic)
    files.py            what a dropped folder means (media files, recursively)
    model_choice.py     which model folder to load, or why none
    errors.py           engine/dictation messages in the UI language (codes kept in the queue DB)
    microphones.py      the input devices the dictation page offers
    worker.py           EngineWorker (owns the Engine, one QThread), ProbeWorker, ScanWorker (folders)
    controller.py       QueueController: the one place the queue changes; hands its Engine to dictation
    queue_model.py      the queue as a QAbstractTableModel + progress delegate
    queue_view.py       queue table, empty-state hint, Up/Down/Remove/Retry
    transcript_view.py  timed segments, playback, Copy all, Export
    player.py           play one segment (QMediaPlayer, stop at its end)
    dictation_panel.py  the Dictation page: Dictate button, history (play/copy/delete), settings
    dictation_host.py   DictationController on the queue's Engine: start, restart on reload, stop
    qt_clipboard.py     the clipboard dictation pastes through (thread-safe QClipboard)
    scan_status.py      the status-bar busy sign while a dropped folder is walked
    main_window.py      toolbar, banner, Files/Dictation pages, status bar, drops, settings, tray, quit
    settings_dialog.py  the Settings dialog
    banner.py, tray.py, icons.py, theme.py, i18n.py, timefmt.py   look and language
    app.py              run_app(): what `tingji` with no arguments opens
"""
