"""Every model family, declared once: its engine module, converter, tiny checkpoint, test fixture,
catalog facts and benchmark.

Each list of families is made from `KITS`: the engine's `FAMILIES`, the exporter's `CONVERTERS`,
each family module's `FAMILY`, `tools/make_tiny_checkpoint.py --family`'s choices and dispatch, the
tests' fixture pairs (`tests/conftest.py`), the strict-manifest test's exports and the DirectML
proof's tiny models. What cannot be made from it (the packages in `pyproject.toml`, the catalog
`assets/models.json`, a sample manifest in `tests/support/manifests.py`, a graph-template release in
`tools/build_templates.py`, the benchmark module) is checked against it by `tests/test_family_kit.py`,
which names the part a family lacks.

This module imports nothing of the families themselves: naming one costs no import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["KITS", "PRECISIONS", "SPEECH", "PUNCTUATION", "SPEAKERS", "Family", "Tiny", "declared", "kit"]

# The ONNX graphs' weights an export may have, for every family: what `tingji export-model --precision`
# offers (export/choices.py) and what a manifest's `precision` may say.
PRECISIONS = ("fp32", "fp16", "int8")

# What a family's model is for: an Engine's recogniser, or a companion the Engine loads beside one.
SPEECH = "speech"
PUNCTUATION = "punctuation"
SPEAKERS = "speakers"
KINDS = (SPEECH, PUNCTUATION, SPEAKERS)


@dataclass(frozen=True)
class Tiny:
    """The family's random-weight checkpoint in its official layout, and the tests' model made of it.

    Args:
        maker: The module in `tools/` whose `make_checkpoint(out, seed=, full_size=, **options)` writes it.
        fixture: The tests' session fixtures are `<fixture>_checkpoint` and `<fixture>_model`.
        checkpoint: The checkpoint's folder name.
        model: The exported model's folder name (the name a test installs it under).
        options: `make_tiny_checkpoint.py`'s options the maker also takes (`size` for `--size`).
        export: `export_model`'s keywords for the tests' model (the reference-exact decoder, ...).
    """

    maker: str
    fixture: str
    checkpoint: str
    model: str
    options: tuple[str, ...] = ()
    export: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def checkpoint_fixture(self) -> str:
        return f"{self.fixture}_checkpoint"

    @property
    def model_fixture(self) -> str:
        return f"{self.fixture}_model"


@dataclass(frozen=True)
class Family:
    """One model family.

    Args:
        name: The manifest's `"family"` value (and the catalog's `about.family`).
        package: Its Python name: the engine module `tingji.engine.families.<package>` and the
            converter `tingji.export.<package>`.
        kind: `SPEECH` (an Engine's model), `PUNCTUATION` or `SPEAKERS` (companions).
        tiny: Its tiny checkpoint and test model.
        benchmark: The module in `benchmarks/` that measures it.
        catalog: Whether the catalog offers it (at least one entry whose `about.family` it is).
        precision: The precision an export gets when none is asked for (`tingji export-model`, and an
            official checkpoint the app imports).
    """

    name: str
    package: str
    kind: str
    tiny: Tiny
    benchmark: str
    catalog: bool = True
    precision: str = "fp32"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:  # a typo here would quietly drop the family from every kind's list
            raise ValueError(f"family {self.name!r}: kind {self.kind!r} is not one of {KINDS}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"family {self.name!r}: precision {self.precision!r} is not one of {PRECISIONS}")

    @property
    def module(self) -> str:
        """The engine module a manifest of this family loads through."""
        return f"tingji.engine.families.{self.package}"

    @property
    def converter(self) -> str:
        """The converter package for its official checkpoints."""
        return f"tingji.export.{self.package}"


KITS: tuple[Family, ...] = (
    Family(
        "fun-asr-nano",
        "fun_asr_nano",
        SPEECH,
        # The maker lives in make_tiny_checkpoint.py itself (the first family); an f32 decoder is the
        # reference-exact configuration.
        Tiny("make_tiny_checkpoint", "tiny", "Fun-ASR-Nano-tiny", "tiny", ("llm_dtype",), {"decoder_quant": "f32"}),
        "run",  # run.py measures Nano's stages itself
    ),
    Family(
        "sense-voice-small",
        "sense_voice_small",
        SPEECH,
        Tiny("tiny_sense_voice", "sv", "SenseVoiceSmall-tiny", "sv-tiny"),
        "sensevoice",
    ),
    Family(
        "qwen3-asr",
        "qwen3_asr",
        SPEECH,
        Tiny("tiny_qwen3_asr", "q3", "Qwen3-ASR-tiny", "tiny", ("size",), {"decoder_quant": "f32"}),
        "qwen3_asr",
    ),
    Family(
        "paraformer",
        "paraformer",
        SPEECH,
        # The BiCIF variant (paraformer-zh, with timestamps); the plain one has fixtures of its own.
        Tiny("tiny_paraformer", "pf", "paraformer-zh-tiny", "pf-tiny", ("variant",)),
        "paraformer",
    ),
    Family(
        "ct-punc",
        "ct_punc",
        PUNCTUATION,
        Tiny("tiny_ct_punc", "punc", "ct-punc-tiny", "ct-punc-tiny"),
        "paraformer",  # measured as Paraformer's companion
    ),
    Family(
        "campplus",
        "campplus",
        SPEAKERS,
        # fp32 only: the tests' model is compared with funasr's CAMPPlus (test_speakers_int8 adds the int8 graph)
        Tiny("tiny_campplus", "speaker", "campplus-tiny", "campplus-tiny", export={"precision": "fp32"}),
        "diarization",
        # Only `tingji models import` for now: the release files at the revision funasr downloads (v2.0.2)
        # are not checked yet. A gap to close, not a rule.
        catalog=False,
        # The int8 CPU graph beside the fp32 ones: the engine runs it where int8 is faster (VNNI, AMX).
        precision="int8",
    ),
)

_BY_NAME = {f.name: f for f in KITS}
_BY_PACKAGE = {f.package: f for f in KITS}


def kit(name: str) -> Family | None:
    """The declared family of a manifest's `"family"` value; None for an unknown one."""
    return _BY_NAME.get(name)


def declared(module: str) -> Family:
    """The family a module of its engine or converter package belongs to (pass `__name__`).

    Args:
        module: A dotted module name under `tingji.engine.families.<package>` or
            `tingji.export.<package>`.

    Raises:
        LookupError: No declared family has that package (a programming error, found by any import).
    """
    for prefix in ("tingji.engine.families.", "tingji.export."):
        if module.startswith(prefix):
            found = _BY_PACKAGE.get(module[len(prefix) :].split(".")[0])
            if found is not None:
                return found
    raise LookupError(f"{module} is in no family declared in tingji.engine.families.kit.KITS")
