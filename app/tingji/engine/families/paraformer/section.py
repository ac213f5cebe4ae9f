"""The `paraformer` section of a model's manifest: one frozen dataclass, written and read as plain JSON.

The converter writes `asdict(ParaformerSection(...))`; the engine reads it
back with `read_section`, which refuses an unknown key, a missing one or a
value of the wrong type or range with one coded ModelError naming the
manifest and the key (a misspelled key must not quietly become a default).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....errors import ModelError
from ... import messages

VARIANTS = ("plain", "bicif")
PRECISIONS = ("fp32", "fp16", "int8")


@dataclass(frozen=True)
class ParaformerSection:
    """What the engine needs beyond the graphs: the CIF settings, the special ids, the timestamp rule.

    Args:
        variant: "plain" (Paraformer, CifPredictorV2: vectorised integrate-and-fire, no timestamp
            head) or "bicif" (BiCifParaformer, CifPredictorV3: loop integrate-and-fire, timestamp head).
        precision: of the encoder and decoder graphs (the timestamp head is always fp32).
        input_size: feature width (80 mels x LFR 7).
        encoder_dim: width of the encoder states and the CIF embeddings.
        vocab_size: decoder outputs; `tokens.json` holds as many tokens.
        threshold: CIF fires when the accumulated weight reaches it (1.0).
        tail_threshold: weight of the extra frame appended after the last one (0.45).
        upsample_times: timestamp frames per encoder frame (3 for the BiCIF head).
        frame_seconds: one encoder frame (LFR 6 x 10 ms).
        blank_id: id dropped from the output, with sos_id and eos_id.
        sos_id: start-of-sentence id.
        eos_id: end-of-sentence id.
        window_reason: why the window is as long as it is (for people reading the manifest).
    """

    variant: str
    precision: str
    input_size: int
    encoder_dim: int
    vocab_size: int
    threshold: float = 1.0
    tail_threshold: float = 0.45
    upsample_times: int = 3
    frame_seconds: float = 0.06
    blank_id: int = 0
    sos_id: int = 1
    eos_id: int = 2
    window_reason: str = ""

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise Invalid("variant", f"must be one of {', '.join(VARIANTS)}")
        if self.precision not in PRECISIONS:
            raise Invalid("precision", f"must be one of {', '.join(PRECISIONS)}")
        for name in ("input_size", "encoder_dim", "vocab_size", "upsample_times"):
            if getattr(self, name) < 1:
                raise Invalid(name, "must be at least 1")
        for name in ("blank_id", "sos_id", "eos_id"):
            if not 0 <= getattr(self, name) < self.vocab_size:
                raise Invalid(name, "must be an id below vocab_size")
        if not 0 < self.threshold <= 1.0:
            raise Invalid("threshold", "must be more than 0 and at most 1")
        if not 0 <= self.tail_threshold < self.threshold:
            raise Invalid("tail_threshold", "must be at least 0 and below threshold")
        if not self.frame_seconds > 0:
            raise Invalid("frame_seconds", "must be more than 0")


class Invalid(ValueError):
    """A value the section refuses (raised in `__post_init__`): which key, and what it must be."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key} {problem}")
        self.key, self.problem = key, problem


_JSON_TYPES: dict[str, tuple[type, ...]] = {"str": (str,), "int": (int,), "float": (int, float)}


def read_section(raw: Any, path: Path) -> ParaformerSection:
    """The section as written by the converter; anything else is one ModelError naming `path` and the key."""
    if not isinstance(raw, dict):
        raise ModelError(messages.PARAFORMER_SECTION, path=path, key="(the section)", problem="is not an object")
    fields = {f.name: f for f in dataclasses.fields(ParaformerSection)}
    for key in raw:
        if key not in fields:
            raise ModelError(messages.PARAFORMER_SECTION, path=path, key=key, problem="is not a key Tingji knows")
    values = {}
    for name, f in fields.items():
        if name not in raw:
            if f.default is dataclasses.MISSING:
                raise ModelError(messages.PARAFORMER_SECTION, path=path, key=name, problem="is missing")
            continue
        value, wanted = raw[name], _JSON_TYPES[str(f.type)]
        if isinstance(value, bool) or not isinstance(value, wanted):
            problem = f"must be {'a number' if f.type == 'float' else 'a whole number' if f.type == 'int' else 'text'}"
            raise ModelError(messages.PARAFORMER_SECTION, path=path, key=name, problem=problem)
        values[name] = float(value) if f.type == "float" else value
    try:
        return ParaformerSection(**values)
    except Invalid as exc:
        raise ModelError(messages.PARAFORMER_SECTION, path=path, key=exc.key, problem=exc.problem) from None
