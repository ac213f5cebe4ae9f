"""Which model folder the app should load, decided from the settings. Imports no Qt.

Kept apart from the window so that the rule is testable and shared by the
engine host and the model views: an explicit setting (installed name or
folder) wins; otherwise, of the installed models that are complete, the one
the catalog ranks first among those best for files (`about.best_for`,
`about.rank`), else the first one. No model at all is a normal state (first
start), not an error: the window opens and explains how to get one.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError
from ..models.catalog import load_catalog
from ..models.installed import InstalledModel, list_models, resolve_model

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelChoice:
    path: Path | None  # what to load; None when nothing can be loaded
    name: str  # for display
    problem: ModelError | None = None  # why the configured model is unusable
    none_installed: bool = False  # nothing configured and nothing installed

    @property
    def ok(self) -> bool:
        return self.path is not None


def choose_model(setting: str) -> ModelChoice:
    setting = (setting or "").strip()
    if setting:
        try:
            path = resolve_model(setting)
        except ModelError as exc:
            return ModelChoice(None, Path(setting).name or setting, problem=exc)
        return ModelChoice(Path(path), Path(path).name)
    installed = [m for m in list_models() if m.manifest_ok and m.speech]
    if not installed:
        return ModelChoice(None, "", none_installed=True)
    best = _preferred(installed)
    return ModelChoice(best.path, best.name)


def _preferred(installed: Sequence[InstalledModel]) -> InstalledModel:
    """The model the catalog recommends first for files, of those installed; else the first installed."""
    if len(installed) == 1:
        return installed[0]
    try:
        catalog = load_catalog()
    except ModelError as exc:  # the model views say what is wrong with it; the app still starts
        log.warning("model choice: the catalog could not be read (%s); taking the first installed model", exc)
        return installed[0]
    ranked = sorted((m.about.rank, m.name) for m in catalog if m.about is not None and "files" in m.about.best_for)
    by_name = {m.name: m for m in installed}
    return next((by_name[name] for _, name in ranked if name in by_name), installed[0])
