"""Which model folder the app should load, decided from the settings. Imports no Qt.

Kept apart from the window so that the rule is testable and shared with a
future model manager: an explicit setting (installed name or folder) wins;
otherwise the preferred catalog model if installed, else the first installed
one that is complete. No model at all is a normal state (first start), not an
error: the window opens and explains how to get one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...errors import ModelError
from ...models.installed import list_models, resolve_model

PREFERRED = "fun-asr-nano-2512"
DOWNLOAD_COMMAND = f"tingji models download {PREFERRED}"


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
    best = next((m for m in installed if m.name == PREFERRED), installed[0])
    return ModelChoice(best.path, best.name)
