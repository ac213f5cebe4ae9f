"""Fun-ASR-Nano checkpoint (FunAudioLLM/Fun-ASR-Nano-2512) -> Tingji model folder.

convert.py      the conversion: graphs, decoder, tokens, manifest
checkpoint.py   reading config.yaml, model.pt and the Qwen3-0.6B folder
modules.py      the audio side in PyTorch (encoder, adaptor, CTC head)
graphs.py       those modules to ONNX (dynamic, fixed 60 s, int8)
"""

from .convert import FAMILY, WINDOW_SECONDS, convert, is_checkpoint

__all__ = ["FAMILY", "WINDOW_SECONDS", "convert", "is_checkpoint"]
