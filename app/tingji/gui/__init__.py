"""The desktop app (Qt). Nothing outside this package imports it except `tingji.cli`.

Module map (Qt-free modules first; they are usable and testable without a display):

    storage.py          the queue and results in SQLite (WAL, a commit per finished file)
    settings.py         settings.json: load (tolerant) / save (atomic)
    files.py            what a dropped folder means (media files, recursively)
    model_choice.py     which model folder to load, or why none
    worker.py           EngineWorker (owns the Engine, one QThread) and ProbeWorker
    controller.py       QueueController: the one place the queue changes
    queue_model.py      the queue as a QAbstractTableModel + progress delegate
    queue_view.py       queue table, empty-state hint, Up/Down/Remove/Retry
    transcript_view.py  timed segments, playback, Copy all, Export
    player.py           play one segment (QMediaPlayer, stop at its end)
    main_window.py      toolbar, banner, splitter, status bar, drops, settings flow
    settings_dialog.py  the Settings dialog
    banner.py, tray.py, icons.py, theme.py, i18n.py, timefmt.py   look and language
    app.py              run_app(): what `tingji` with no arguments opens
"""
