"""Qwen3-ASR checkpoint (Qwen/Qwen3-ASR-0.6B, -1.7B) -> Tingji model folder.

convert.py      the conversion: encoder graphs, decoder, manifest
checkpoint.py   reading config.json, the safetensors weights and the tokenizer files
modules.py      the audio tower in PyTorch, written for static shapes
graphs.py       that module to ONNX (dynamic, fixed 60 s, int8)
"""

from .convert import FAMILY, WINDOW_SECONDS, convert, is_checkpoint

__all__ = ["FAMILY", "WINDOW_SECONDS", "convert", "is_checkpoint"]
