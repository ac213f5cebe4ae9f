"""Fun-ASR-Nano (FunAudioLLM/Fun-ASR-Nano-2512): the first family.

recognizer.py   FunAsrNano: features -> encoder (+CTC) -> LLM prompt -> text
encoder.py      the encoder+adaptor and CTC graphs in ONNX Runtime
prompt.py       the reference's ChatML prompt (language, hotwords, ITN)
"""

from .recognizer import FAMILY, FILE_ROLES, REQUIRED_FILES, FunAsrNano, load

__all__ = ["FAMILY", "FILE_ROLES", "REQUIRED_FILES", "FunAsrNano", "load"]
