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

from ..errors import ModelError
from . import messages


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
