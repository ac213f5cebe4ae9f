"""Which model the live preview runs on, in the app: the faster installed model it may fall back on, and
what Settings says about it (`dictationPreviewModel`).

The rule itself is tingji.dictation.preview's (`PreviewModel`): the dictation model
previews while one preview run on a short take fits in the refresh interval;
when it does not, an installed model the catalog rates fastest (`about.speed`; SenseVoice-Small
today: one encoder pass and a CTC head) previews on an Engine of its own. This module
only finds that model and words the choice.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from ...dictation.preview import FasterModel, PreviewChoice, PreviewEngine
from ...errors import TingjiError
from ...paths import graph_cache_dir

__all__ = ["faster_preview_model", "preview_model_text"]


def faster_preview_model(family: str, path: str, provider: str, device: str) -> FasterModel | None:
    """The installed model of the catalog's fastest speed class the preview may fall back on (today
    SenseVoice-Small); None when the dictation model (`family`, folder `path`) is one itself or none is
    installed. It would run where the app's models run (`provider`, DirectML's `device`)."""
    from ...models.installed import list_models

    fastest = _fastest_families()
    if not fastest or family in fastest:
        return None
    here = Path(path).resolve()
    found = [m for m in list_models() if m.manifest_ok and m.family in fastest and m.path.resolve() != here]
    if not found:
        return None
    model = next((m for m in found if m.name in fastest[m.family][0]), found[0])  # a catalog entry's, if installed
    return FasterModel(model.name, partial(_load, str(model.path), provider, device), fastest[model.family][1])


def _load(path: str, provider: str, device: str) -> PreviewEngine:
    from ...engine.transcribe import Engine  # heavy: the preview's loader thread imports it, never the GUI's

    return Engine(path, provider=provider, device=device or None, graph_cache=graph_cache_dir())


def _fastest_families() -> dict[str, tuple[set[str], tuple[str, ...]]]:
    """family -> (its catalog entries' names, the languages the catalog gives it) for the families the catalog
    rates fastest (`about.speed`, companions aside): the languages, so a take in another language does not load
    it for nothing. Empty when the catalog cannot be read."""
    from ...models.about import SPEEDS
    from ...models.catalog import load_catalog

    try:
        catalog = load_catalog()
    except TingjiError:
        return {}
    found: dict[str, tuple[set[str], tuple[str, ...]]] = {}
    for entry in catalog:
        about = entry.about
        if about is None or about.companion or about.speed != SPEEDS[0]:
            continue
        found.setdefault(about.family, (set(), about.languages))[0].add(entry.name)
    return found


# Settings' line per preview state ({0} the dictation model, {1} the faster one, {2} the seconds a refresh
# took, {3} the refresh interval); "unmeasured" names the faster model only when there is one.
_TEXTS = {
    "faster": QT_TRANSLATE_NOOP(
        "ModelUse",
        "The preview runs on {1}: the dictation model ({0}) took {2:.2f} s per refresh, more than {3:.1f} s. "
        "The inserted text still comes from {0}.",
    ),
    "loading": QT_TRANSLATE_NOOP(
        "ModelUse",
        "The dictation model ({0}) took {2:.2f} s per refresh, more than {3:.1f} s: the preview moves to {1} "
        "after this take.",
    ),
    "failed": QT_TRANSLATE_NOOP(
        "ModelUse",
        "The preview runs on the dictation model ({0}), less often: it took {2:.2f} s per refresh, more than "
        "{3:.1f} s, and {1} could not be loaded (the log says why).",
    ),
    "slow": QT_TRANSLATE_NOOP(
        "ModelUse",
        "The preview runs on the dictation model ({0}), less often: it took {2:.2f} s per refresh, more than "
        "{3:.1f} s. With SenseVoice-Small installed, that would preview instead.",
    ),
    "fits": QT_TRANSLATE_NOOP(
        "ModelUse", "The preview runs on the dictation model ({0}): {2:.2f} s per refresh, within {3:.1f} s."
    ),
    "unmeasured": QT_TRANSLATE_NOOP(
        "ModelUse",
        "The preview runs on the dictation model ({0}) while it keeps up with a refresh every {3:.1f} s, else on {1}.",
    ),
    "unmeasured, none faster": QT_TRANSLATE_NOOP(
        "ModelUse", "The preview runs on the dictation model ({0}), less often when the model is slow."
    ),
}


def preview_model_text(choice: PreviewChoice | None) -> str:
    """Settings' line naming the model the preview runs on, and why (empty: no dictation model)."""
    if choice is None or not choice.dictation:
        return ""
    own, faster = choice.dictation, choice.faster or ""
    cost, interval = choice.cost_s or 0.0, choice.interval_s
    state = choice.state if choice.state in _TEXTS else "unmeasured"
    if state == "unmeasured" and not faster:
        state = "unmeasured, none faster"
    return QCoreApplication.translate("ModelUse", _TEXTS[state]).format(own, faster, cost, interval)
