"""Paraformer checkpoints (Paraformer, BiCifParaformer; funasr releases) -> Tingji model folders.

convert.py      the conversion: graphs, CMVN, tokens, manifest
checkpoint.py   reading and checking config.yaml, am.mvn, tokens.json and model.pt (NumPy, no torch)
dims.py         the sizes, and the tensors (names, shapes) they give
modules.py      encoder + CIF weights, decoder over token slots, timestamp head in PyTorch
graphs.py       their ONNX exports (dynamic, fixed-shape twins, int8): torch's where it is installed,
                else filled from graph templates (`export.templates`)
"""

from .convert import WINDOW_SECONDS, convert, is_checkpoint
from .graphs import FAMILY

__all__ = ["FAMILY", "WINDOW_SECONDS", "convert", "is_checkpoint"]
