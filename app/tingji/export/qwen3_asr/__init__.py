"""Qwen3-ASR checkpoint (Qwen/Qwen3-ASR-0.6B, -1.7B) -> Tingji model folder.

convert.py      the conversion: encoder graphs, decoder, manifest
checkpoint.py   reading config.json, the safetensors weights (NumPy) and the tokenizer files
dims.py         the audio tower's sizes
modules.py      the audio tower in PyTorch, written for static shapes (the only module importing torch)
graphs.py       that module to ONNX (dynamic, fixed 60 s, int8), or the same graphs from templates
int8_conv.py    the int8 graph's convolutions as u8 x s8 matrix products
"""

from .convert import WINDOW_SECONDS, convert, is_checkpoint
from .graphs import FAMILY

__all__ = ["FAMILY", "WINDOW_SECONDS", "convert", "is_checkpoint"]
