"""Companion models: what an `Engine` loads beside its recogniser - punctuation, speakers, the VAD - opened one way.

A companion is a model folder of its own family (`ct-punc`, `campplus`), or
for the VAD a single graph file. Each opens through `Companion`: the
manifest read strictly (`manifest.load_manifest`), the family checked (one
coded line naming what the folder is instead), the files verified, then its
graphs on the shared session layer (`sessions.OnnxGraphs`) with the
`LoadOptions` the recogniser got: the same provider choice and adapter,
CPU fallback with one warning, `ort_compat`'s rewrites, the finiteness check
on every output (a NaN is the coded `engine.not_finite`), and the graph cache.
Only `buckets` is dropped: they count the recogniser's frames.

`Engine` and the model manager's install check open the recogniser's own
folder with the same `open_folder`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from ..errors import Message, ModelError
from .families.base import OnnxFamily
from .manifest import FileEntry, Manifest, load_manifest, sha256_file, verify
from .options import LoadOptions
from .sessions import GraphSpec, OnnxGraphs


def open_folder(
    folder: str | os.PathLike[str], family: str | None, refused: Message | None, *, check_hashes: bool
) -> Manifest:
    """A model folder's manifest, read strictly, of `family`, with its files verified.

    Args:
        folder: The model folder.
        family: The family it must be; None: any (a recogniser's folder; its family is looked up later).
        refused: The coded error for another family (fields `folder`, `family`).
        check_hashes: Verify every file's SHA-256 (sizes are always checked).

    Raises:
        ModelError: The manifest, a file or the family is wrong.
    """
    manifest = load_manifest(folder)
    if family is not None and manifest.family != family:
        raise ModelError(refused, folder=manifest.folder, family=manifest.family)
    verify(manifest, check_hashes=check_hashes)
    return manifest


def read_tokens(path: Path, size: int, unreadable: Message) -> list[str]:
    """A converter's tokens.json: a JSON list of `size` strings; anything else is `unreadable` (`path`, `reason`)."""
    try:
        tokens = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise ValueError("not a JSON list of strings")
        if len(tokens) != size:
            raise ValueError(f"{len(tokens)} tokens, the model has {size}")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelError(unreadable, path=path, reason=exc) from None
    return tokens


def for_companion(options: LoadOptions | None, **changes: Any) -> LoadOptions:
    """The recogniser's load options as a companion takes them: whole, less the recogniser's frame buckets.

    Args:
        options: The recogniser's; None: the defaults.
        changes: `LoadOptions` fields a caller sets on top (a script's `provider="cpu"`).
    """
    return replace(options or LoadOptions(), buckets=None, **changes)


def graph_file_manifest(path: Path, family: str, role: str) -> Manifest:
    """A manifest for a lone graph file (the VAD's), so it opens and is cached like a model folder's graphs."""
    entry = FileEntry(path.name, sha256_file(path), path.stat().st_size)  # the cache's key needs the hash
    return Manifest(path.parent, family, {role: entry}, 0.0, 0, None)


class Companion(OnnxFamily):  # provider, device and warnings come from its graphs
    """A companion model loaded on the shared session layer; a subclass names its family and graphs.

    Args:
        folder: Its model folder.
        options: The recogniser's `LoadOptions` (`for_companion`); None: the defaults.
        check_hashes: Verify every file's SHA-256 before loading (sizes are always checked).
        choices: `LoadOptions` fields set on top of `options` (`provider="cpu"`, `threads=2`).
    """

    FAMILY: ClassVar[str]
    REFUSED: ClassVar[Message]  # another family's folder (fields `folder`, `family`)
    SPECS: ClassVar[Sequence[GraphSpec]]

    graphs: OnnxGraphs

    def __init__(
        self,
        folder: str | os.PathLike[str],
        options: LoadOptions | None = None,
        *,
        check_hashes: bool = True,
        **choices: Any,
    ) -> None:
        self.manifest = open_folder(folder, self.FAMILY, self.REFUSED, check_hashes=check_hashes)
        self.folder = self.manifest.folder
        self.section = self.manifest.section
        self.prepare()
        self.open_graphs(for_companion(options, **choices))

    def prepare(self) -> None:
        """What the subclass reads from its folder before the graphs open (a token list)."""

    def open_graphs(self, options: LoadOptions) -> None:
        """Its graphs on the shared session layer, warmed by `warm_up` when `options.warm`."""
        self.graphs = OnnxGraphs(self.manifest, self.SPECS, options, warm=self.warm_up)

    def warm_up(self, graphs: OnnxGraphs) -> None:
        """Run each graph once (at load, and again on the CPU after a fallback)."""

    def close(self) -> None:
        self.graphs = None  # type: ignore[assignment]
