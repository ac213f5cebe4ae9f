"""Which files a funasr release folder uses (`configuration.json`'s `file_path_metas`), and its token list.

SenseVoice-Small and Paraformer releases name their CMVN statistics and
vocabulary there (funasr's loader joins the names to the folder). A name
that is not a plain file name inside the folder is refused: a release must
not point Tingji at files elsewhere on the machine.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from ..engine.frontend import Cmvn, load_cmvn
from ..errors import Message, ModelError
from . import messages


def read_config(folder: Path, missing: Message) -> tuple[Path, dict[str, Any]]:
    """A release's config.yaml and what it holds (a mapping), or one coded line.

    Args:
        folder: the release folder.
        missing: the family's error for a folder without config.yaml (fields: `folder`).
    """
    path = folder / "config.yaml"
    if not path.is_file():
        raise ModelError(missing, folder=folder)
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ModelError(messages.YAML_UNREADABLE, path=path, reason=exc) from None
    if not isinstance(config, dict):
        raise ModelError(messages.CONFIG_NOT_MAPPING, path=path)
    return path, config


def read_cmvn(path: Path) -> Cmvn:
    """A release's am.mvn (Kaldi CMVN statistics), or one coded line naming it."""
    try:
        return load_cmvn(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelError(messages.NOT_CMVN, path=path, reason=exc) from None


def release_file_names(folder: Path, wanted: Mapping[str, tuple[str, str, str]]) -> dict[str, str]:
    """{role: file name} for roles given as (file_path_metas section, key, default name).

    Without a configuration.json every role gets its default name.
    """
    names = {role: default for role, (_, _, default) in wanted.items()}
    path = folder / "configuration.json"
    if not path.is_file():
        return names
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        metas = data.get("file_path_metas") or {}
        found = {role: (metas.get(section) or {}).get(key) for role, (section, key, _) in wanted.items()}
    except (ValueError, UnicodeDecodeError, AttributeError):
        raise ModelError(messages.FUNASR_CONFIG_UNREADABLE, path=path) from None
    for role, name in found.items():
        if isinstance(name, str) and name:
            if Path(name).name != name or name in (".", ".."):
                raise ModelError(messages.FUNASR_NOT_A_FILE_NAME, path=path, name=name)
            names[role] = name
    return names


def read_token_list(path: Path) -> list[str]:
    """A release's tokens.json: a JSON list of distinct strings (the vocabulary, ids in list order)."""
    try:
        tokens = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise ModelError(messages.NOT_TOKEN_LIST, path=path, reason=f"not JSON: {exc}") from None
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
        raise ModelError(messages.NOT_TOKEN_LIST, path=path, reason="expected a JSON list of strings")
    seen: set[str] = set()
    for token in tokens:
        if token in seen:
            raise ModelError(messages.NOT_TOKEN_LIST, path=path, reason=f"{token!r} appears twice")
        seen.add(token)
    return tokens
