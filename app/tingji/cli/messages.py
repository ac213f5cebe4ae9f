"""What the `tingji` command says when something goes wrong: one constant per message (see tingji/errors.py)."""

from __future__ import annotations

from ..errors import Message, WarningMessage

CANNOT_CREATE_OUT = Message("cli.cannot_create_out", "{folder}: cannot create the output folder ({reason})")
OUT_NOT_FOLDER = Message("cli.out_not_folder", "{folder}: output path is not a folder")
OUT_NOT_WRITABLE = Message("cli.out_not_writable", "{folder}: output folder is not writable")
REMOVE_NEEDS_YES = Message("cli.remove_needs_yes", "not removing {name} without --yes (no terminal to ask on)")
NOT_REMOVED = Message("cli.not_removed", "{name} not removed")
NO_PUNCTUATION_MODEL = WarningMessage(
    "cli.no_punctuation_model",
    "{model} writes no punctuation and no punctuation model is installed (tingji models download ct-punc-zh)",
)
NO_SPEAKER_MODEL = Message(
    "cli.no_speaker_model",
    "--speakers {speakers} needs a speaker model: none is installed (name one with --speaker-model)",
)
# The desktop app's Qt libraries link one the system lacks (tingji.system_libraries): which, and its package.
GUI_LIBRARY_MISSING = Message(
    "cli.gui_library_missing",
    "the desktop app cannot start: Qt needs {library}, which is missing or broken (package {package})",
)
