"""What the desktop app itself says when something goes wrong (see tingji/errors.py). No Qt here."""

from __future__ import annotations

from ..errors import Message

NO_MODEL = Message("gui.no_model", "no model loaded")
UNKNOWN_TASK = Message("gui.unknown_task", "internal: unknown task {task!r}")
# Anything that is not a TingjiError is a bug (or a runtime that choked): said as Python says it.
INTERNAL = Message("gui.internal", "internal error ({kind}: {detail}); please report this")
# The disk or the system refused (full, read-only, permissions) outside the model manager's own
# checks: what the system said, and the file it was about.
SYSTEM_REFUSED = Message("gui.system_refused", "{reason}: {file}")
SYSTEM_REFUSED_NO_FILE = Message("gui.system_refused_no_file", "{reason}")
