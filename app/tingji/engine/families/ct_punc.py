"""The `ct-punc` family: a punctuation model (engine/punctuation.py), not a speech recogniser.

Its manifest section (`PunctuationSection`) lives here, as every family's does.

It is a model folder like the others - listed, verified and removed by the
model manager - so it has a place here; loading it as the model of an
Engine is refused with one line saying what it is for. It reads text, so its
manifest has no front-end (`{}`) and no window (zeros): `FRONTEND` and
`WINDOW` say so, and are read as strictly as any family's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ModelError
from .. import messages
from ..manifest import Manifest
from ..options import LoadOptions
from ..schema import Invalid, entry

FAMILY = "ct-punc"
FILE_ROLES = ("punc", "punc_data", "tokens")
REQUIRED_FILES = ("punc", "tokens")
MARKS_NEEDED = ("_", "，", "。", "？")


@dataclass(frozen=True, kw_only=True)
class PunctuationSection:
    """The `ct-punc` section of a punctuation model's manifest (written as `asdict`, read strictly by
    `manifest.load_manifest`, `engine.schema`).

    Args:
        precision: Of the graph.
        vocab_size: Rows of the token embedding; `tokens.json` holds as many tokens.
        marks: The mark per class, funasr's `punc_list` (`_` is none).
        sentence_end_id: The class funasr forces at the end and at a long carry's cut (`。`).
        unk_id: The id of a word not in the vocabulary.
        split_size: Words marked at a time (funasr's default 20).
        carry_limit: A carried chunk longer than this is cut at its last comma (200).
    """

    precision: str = entry(choices=("fp32", "int8"))
    vocab_size: int = entry(min=1)
    marks: tuple[str, ...] = entry(nonempty=True)
    sentence_end_id: int = entry(min=0, id_of="marks")  # a class: an index into marks
    unk_id: int = entry(min=0, id_of="vocab_size")
    split_size: int = entry(20, min=2)
    carry_limit: int = entry(200, min=1)

    def __post_init__(self) -> None:
        if not set(MARKS_NEEDED) <= set(self.marks):
            raise Invalid("marks", messages.PUNC_MARKS, needed=" ".join(MARKS_NEEDED))

    def check_frontend(self, frontend: object) -> None:
        """A punctuation model reads text: there is no front-end to agree with."""


@dataclass(frozen=True)
class NoFrontend:
    """A punctuation model's front-end: none (the manifest's `frontend` is `{}`)."""


@dataclass(frozen=True)
class NoWindow:
    """A punctuation model takes no audio window: the manifest's core holds zeros."""

    window_seconds: float = entry(0.0, min=0, max=0)
    window_frames: int = entry(0, min=0, max=0)


FRONTEND = NoFrontend
WINDOW = NoWindow
SECTION = PunctuationSection


def load(manifest: Manifest, options: LoadOptions):
    raise ModelError(messages.NOT_A_RECOGNIZER, folder=manifest.folder)
