"""Paraformer checkpoints (Paraformer, BiCifParaformer; funasr releases) -> Tingji model folders.

convert.py      the conversion: graphs, CMVN, tokens, manifest
checkpoint.py   reading and checking config.yaml, am.mvn, tokens.json and model.pt
modules.py      encoder + CIF weights, decoder over token slots, timestamp head in PyTorch
graphs.py       their ONNX exports (dynamic, fixed-shape twins, int8)
"""

from .convert import FAMILY, WINDOW_SECONDS, convert, is_checkpoint

__all__ = ["FAMILY", "WINDOW_SECONDS", "convert", "is_checkpoint"]
