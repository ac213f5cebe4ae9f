"""The `campplus` family: a speaker model (engine/speakers), not a speech recogniser; its manifest section lives here.

It is a model folder like the others - listed, verified and removed by the
model manager - so it has a place here; loading it as an Engine's model is
refused with one line saying what it is for.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ModelError
from .. import messages
from ..frontend import FrontendConfig
from ..manifest import Manifest
from ..options import LoadOptions
from ..schema import Invalid, entry

FAMILY = "campplus"
INPUTS = ("feats", "mask")
OUTPUTS = ("embedding",)
WINDOW_SECONDS = 1.5  # FunASR's sv_chunk: 1.5 s windows every 0.75 s
SHIFT_SECONDS = 0.75
PRECISIONS = ("fp32", "int8")  # int8: the fp32 graphs and the int8 CPU graph beside them
# Windows per run of the fixed batch twin (DirectML): a 60 s transcription window's speech is up to 79
# windows (5 runs), a dictation take's a few (one run); a short last run is padded with masked zero windows.
FIXED_BATCH = 16


@dataclass(frozen=True, kw_only=True)
class SpeakerSection:
    """The `campplus` section of a speaker model's manifest (written as `asdict`, read strictly by `schema`).

    Args:
        precision: "int8" when the folder also has the int8 CPU graph (`embedder_int8`, run where int8 is
            faster: `speakers/model.py`), else "fp32" (export/campplus/convert.py).
        feat_dim: fbank bins the graph takes.
        embedding_size: the embedding's width.
        inputs: the fp32 graphs' input names (features, mask); the int8 CPU graph takes the features
            alone, as it embeds whole clips (export/campplus/int8.py).
        outputs: its output name.
        shift_seconds: step between windows (the window itself is the manifest's window_seconds).
        subtract_mean: each clip's features minus their mean per bin, as funasr's extract_feature.
        fixed_batch: windows per run of the fixed batch twin (file role `embedder_batch`, inputs
            [fixed_batch, window_frames, feat_dim] and its mask), where the folder has one.
    """

    precision: str = entry(choices=PRECISIONS)
    feat_dim: int = entry(min=1)
    embedding_size: int = entry(min=1)
    inputs: tuple[str, ...] = entry(INPUTS, choices=INPUTS)
    outputs: tuple[str, ...] = entry(OUTPUTS, choices=OUTPUTS)
    shift_seconds: float = entry(SHIFT_SECONDS, above=0)
    subtract_mean: bool = True
    fixed_batch: int = entry(1, min=1)

    def check_frontend(self, frontend: FrontendConfig) -> None:
        """The graph must take the rows the front-end makes: plain fbank, feat_dim bins (`schema.Invalid`)."""
        if self.feat_dim != frontend.feature_dim:
            raise Invalid(
                "feat_dim",
                messages.KEY_MISMATCH,
                value=self.feat_dim,
                other="frontend.n_mels × frontend.lfr_m",
                expected=frontend.feature_dim,
            )


FILE_ROLES = ("embedder", "embedder_fixed", "embedder_batch", "embedder_int8", "embedder_data")
REQUIRED_FILES = ("embedder",)
FRONTEND = FrontendConfig
SECTION = SpeakerSection


def load(manifest: Manifest, options: LoadOptions):
    raise ModelError(messages.SPEAKER_MODEL_NOT_ASR, folder=manifest.folder)
