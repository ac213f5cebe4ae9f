"""Models already installed under `paths.models_dir()`: list, resolve, verify, remove, overview.

Installed models are folders under `paths.models_dir()`, one per name, each a
Tingji model folder (manifest.json plus the files it lists). Nothing here
downloads or converts: that is `store`; these are the operations on folders
that are already in place.
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..engine import manifest as mf
from ..engine.ort_cache import forget
from ..errors import ModelError
from ..paths import graph_cache_dir, models_dir
from . import messages
from .cache import cached_bytes
from .catalog import NAME_RE, Catalog, HashCount
from .staging import REMOVING_PREFIX, StageProgress, verify_folder


@dataclass(frozen=True)
class InstalledModel:
    name: str
    path: Path
    size: int
    manifest_ok: bool  # manifest readable and every file present with its size (hashes: `verify`)
    problem: ModelError | None = None  # why manifest_ok is False
    family: str = ""  # the manifest's family ("" when unreadable)

    @property
    def speech(self) -> bool:
        """A speech model (a punctuation or speaker model only serves the speech models)."""
        from ..engine.families.campplus import FAMILY as SPEAKERS
        from ..engine.families.ct_punc import FAMILY as PUNCTUATION

        return self.family not in (PUNCTUATION, SPEAKERS)


def validate_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ModelError(messages.BAD_NAME, name=name)
    return name


def _installed_names() -> list[str]:
    return sorted(c.name for c in models_dir().iterdir() if c.is_dir() and not c.name.startswith("."))


def _no_such_model(name: str) -> ModelError:
    names = _installed_names()
    if names:
        return ModelError(messages.NO_SUCH_MODEL, name=name, installed=", ".join(names))
    return ModelError(messages.NO_MODELS, name=name)


def _installed_path(name: str) -> Path:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise _no_such_model(str(name))
    path = models_dir() / name
    if not path.is_dir():
        raise _no_such_model(name)
    return path


@dataclass(frozen=True)
class ModelStatus:
    """One line of the model overview: an installed model, a catalog model, or both."""

    name: str
    state: str  # "installed", "broken" (files missing or wrong size), "partial" (resumable), "available"
    size: int | None  # installed size, else the catalog's download size when known
    title: str = ""
    description: str = ""
    kind: str | None = None  # catalog kind; None for a model not in the catalog
    cached: int = 0  # bytes already downloaded for a resumable download
    path: Path | None = None
    problem: ModelError | None = None  # why an installed model is broken
    hashes: HashCount | None = None  # what a download can be checked against; None: not in the catalog

    @property
    def installed(self) -> bool:
        return self.state in ("installed", "broken")


def overview(catalog: Catalog | None = None) -> list[ModelStatus]:
    """Installed models and downloadable ones, with resumable downloads marked; installed first."""
    rows: list[ModelStatus] = []
    listed = {m.name: m for m in list_models()}
    entries = {m.name: m for m in (catalog if catalog is not None else [])}
    for m in listed.values():
        entry = entries.get(m.name)
        rows.append(
            ModelStatus(
                m.name,
                "installed" if m.manifest_ok else "broken",
                m.size,
                entry.title if entry else "",
                entry.description if entry else "",
                entry.kind if entry else None,
                0,
                m.path,
                m.problem,
                entry.hashes if entry else None,
            )
        )
    for entry in entries.values():
        if entry.name in listed:
            continue
        cached = cached_bytes(entry.name)
        rows.append(
            ModelStatus(
                entry.name,
                "partial" if cached else "available",
                entry.known_size,
                entry.title,
                entry.description,
                entry.kind,
                cached,
                hashes=entry.hashes,
            )
        )
    return rows


def list_models() -> list[InstalledModel]:
    """Installed models by name; half-installed (`.incoming-*`) folders are not shown."""
    out: list[InstalledModel] = []
    for name in _installed_names():
        path = models_dir() / name
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        family = ""
        try:
            manifest = mf.load_manifest(path)
            family = manifest.family
            mf.verify(manifest, check_hashes=False)
            ok, problem = True, None
        except ModelError as exc:
            ok, problem = False, exc
        out.append(InstalledModel(name, path, size, ok, problem, family))
    return out


def resolve_model(name_or_dir: str | os.PathLike[str]) -> Path:
    """A model folder (with manifest.json) as given, else the installed model of that name."""
    text = os.fspath(name_or_dir)
    path = Path(text).expanduser()
    if path.is_dir() and (path / mf.MANIFEST_NAME).is_file():
        return path.resolve()
    if NAME_RE.match(text):
        installed = models_dir() / text
        if (installed / mf.MANIFEST_NAME).is_file():
            return installed
    if path.is_dir():
        raise ModelError(messages.NOT_A_MODEL_FOLDER, path=path)
    raise _no_such_model(text)


def first_of_family(family: str) -> Path | None:
    """The first installed model of `family` by name; None: none. A folder whose manifest cannot be read is
    passed over. Which companion a use loads is `models.companions`' policy."""
    for name in _installed_names():
        path = models_dir() / name
        try:
            if mf.load_manifest(path).family == family:
                return path
        except ModelError:
            continue
    return None


def verify(name: str, progress: StageProgress | None = None) -> mf.Manifest:
    """Check every file of an installed model against its SHA-256; ModelError names the bad file."""
    return verify_folder(_installed_path(name), progress)


def remove(name: str) -> None:
    """Uninstall: the folder disappears at once (rename), then is deleted."""
    path = _installed_path(name)
    trash = models_dir() / f"{REMOVING_PREFIX}{name}-{uuid.uuid4().hex[:8]}"
    try:
        manifest = mf.load_manifest(path)
    except ModelError:
        manifest = None  # a broken folder still goes; it had no usable cache entries
    try:
        os.replace(path, trash)
    except OSError as exc:
        raise ModelError(messages.CANNOT_REMOVE, name=name, reason=exc.strerror or str(exc)) from None
    shutil.rmtree(trash, ignore_errors=True)
    if manifest is not None:
        forget(graph_cache_dir(), manifest)
