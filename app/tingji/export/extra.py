"""The `export` extra: which modules it provides, and the one error for when it is missing.

The extra is the torch exporter: it makes the graph templates that every
install converts with (`export.templates`), so a plain install and the frozen
app convert the released checkpoints without it. It is needed only where
graphs are asked of torch (`TINGJI_GRAPHS=torch`). Both ways into the
exporter, the `tingji export-model` command and the model manager converting
a downloaded checkpoint, wrap it in `needs_export_extra`, so the user gets the
same one-line answer from either. Only the extra's own modules count: any
other missing module is a broken install or a bug, and installing the extra
would not fix it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import Message, ModelError

# Import names of the packages listed under [project.optional-dependencies] export;
# tests/export/test_export.py checks the two lists agree.
EXTRA_MODULES = frozenset({"torch", "onnxscript"})
INSTALL_HINT = 'pip install "tingji[export]"'  # double quotes: cmd.exe does not strip single ones


def missing_extra_module(exc: ModuleNotFoundError) -> str | None:
    """The export-extra module whose absence raised `exc`, or None when it is another module."""
    top = (exc.name or "").split(".")[0]
    return top if top in EXTRA_MODULES else None


@contextmanager
def needs_export_extra(message: Message) -> Iterator[None]:
    """Run the block; a missing export-extra module becomes one ModelError naming it and the fix.

    `message` says which way the exporter was reached, with fields `module` and `hint`
    (messages.EXTRA_FOR_EXPORT, messages.EXTRA_FOR_CONVERSION).
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        missing = missing_extra_module(exc)
        if missing is None:
            raise
        raise ModelError(message, module=missing, hint=INSTALL_HINT) from None
