"""CAM++ speaker embeddings (3D-Speaker; ModelScope iic/speech_campplus_sv_zh-cn_16k-common) -> a model folder.

The speaker model is a companion model: it labels who spoke, after any family
transcribed. `checkpoint` reads and checks the release (against `dims`, without
torch), `modules` is our PyTorch definition with a frame mask, `convert` exports
and writes the folder, `int8` rewrites its convolutions for the int8 CPU graph.
"""

from ...engine.families.campplus import FAMILY
from .checkpoint import is_checkpoint
from .convert import convert

__all__ = ["FAMILY", "convert", "is_checkpoint"]
