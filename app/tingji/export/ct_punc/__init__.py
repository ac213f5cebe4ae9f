"""CT-Transformer punctuation checkpoints (funasr's ct-punc-c release) -> Tingji punctuation model folders.

convert.py      the conversion: the graph, tokens, manifest
checkpoint.py   reading and checking config.yaml, tokens.json and model.pt
dims.py         its sizes and the tensors they give (no torch)
modules.py      token embedding + SAN-M encoder + mark classifier in PyTorch
"""

from ...engine.families.kit import declared
from .convert import convert, is_checkpoint

FAMILY = declared(__name__).name  # the name in engine/families/kit.py

__all__ = ["FAMILY", "convert", "is_checkpoint"]
