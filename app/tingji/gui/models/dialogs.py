"""The window's way into the model dialogs: the first-run picker and the model manager.

The picker stays open beside the window (not modal: files can be added while
a model downloads); a model it installs is loaded at once. In the manager,
"Use for files" / "Use for dictation" becomes a settings change that the
window saves and applies (`apply`), like one made in Settings; after installs
or removals the engines are reloaded, so a new model is picked up at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QWidget

from ..engine_host import EngineHost
from ..settings import Settings
from ..settings_dialog import SettingsDialog


class ModelDialogs(QObject):
    def __init__(
        self,
        engine: EngineHost,
        window: QWidget,
        settings: Callable[[], Settings],
        apply: Callable[[Settings], None],
    ) -> None:
        """`settings` gives the app's current settings, `apply` saves and applies new ones (the window's)."""
        super().__init__(window)
        self.engine = engine
        self.window = window
        self._settings = settings
        self._apply = apply
        self.picker = None  # the model picker while it is open (models/picker.py)
        self.manager = None  # the model manager while it is open (models/manager.py)

    def offer_picker(self) -> None:
        """Nothing configured and nothing installed (a first start): open the model picker."""
        choice = self.engine.choice_of("files")
        if choice is not None and choice.none_installed and self.picker is None:
            self.open_picker()

    def open_picker(self) -> None:
        """The model picker, beside the window (not modal): files can be added while a model downloads."""
        from .picker import ModelPickerDialog  # loaded when first opened: the catalog

        if self.picker is not None:
            self.picker.raise_()
            self.picker.activateWindow()
            return
        picker = self.picker = ModelPickerDialog(self.window)
        picker.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        picker.modelInstalled.connect(self._model_installed)
        picker.finished.connect(self._picker_closed)
        picker.show()

    def _picker_closed(self) -> None:
        self.picker = None

    def _model_installed(self, name: str) -> None:
        """A model was installed from the picker: the uses that had none (or failed) load now."""
        self.engine.apply_settings(self._settings())

    def open_manager(self, settings_dialog: SettingsDialog | None = None) -> None:
        """The model manager (modal). Opened from Settings (`settings_dialog`): its model lists are refreshed."""
        from .manager import ModelManagerDialog  # loaded when first opened: the catalog, downloads

        files, dictation = self.engine.choice_of("files"), self.engine.choice_of("dictation")
        files_name = files.name if files is not None and files.ok else ""
        dictation_name = dictation.name if dictation is not None and dictation.ok else ""
        dialog = ModelManagerDialog(
            self.window, current=files_name, dictation=None if self.engine.shared() else dictation_name
        )
        chosen: list[str] = []
        dialog.modelChosen.connect(lambda name, use: chosen.append(use))
        dialog.modelChosen.connect(self.use_model)
        self.manager = dialog
        try:
            dialog.exec()
        finally:
            self.manager = None
            # exec() leaves the dialog Python's although the window owns it too: Qt alone deletes it now
            # (gui/__init__.py on ownership); one left behind per opening crashed the interpreter's exit.
            dialog.deleteLater()
        if dialog.models_changed:
            self.engine.reload()
        if settings_dialog is not None:  # opened from Settings: its model lists are stale now
            if chosen:  # what the window uses now (use_model applied it)
                settings_dialog.refresh_models(self._settings().model, self._settings().dictation_model)
            else:
                settings_dialog.refresh_models()

    def use_model(self, name: str, use: str = "files") -> None:
        """Make an installed model the one `use` ("files" or "dictation") runs: saved, then loaded in the
        background. Files only: dictation keeps the model it runs (it followed files until now)."""
        settings = self._settings()
        if use == "dictation":
            self._apply(replace(settings, dictation_model=name))
            return
        dictation = settings.dictation_model
        if not dictation:
            current = self.engine.choice_of("dictation")
            dictation = settings.model or (current.name if current is not None and current.ok else "")
        if dictation == name:
            dictation = ""
        self._apply(replace(settings, model=name, dictation_model=dictation))

    def shutdown(self) -> None:
        """The app is ending: a task the picker or the manager runs is cancelled and waited for."""
        if self.picker is not None:
            self.picker.shutdown()
            self.picker = None
        if self.manager is not None:  # its exec() returns once the app's loop ends; open_manager deletes it
            self.manager.shutdown()
