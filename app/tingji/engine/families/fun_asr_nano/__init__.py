"""Fun-ASR-Nano (FunAudioLLM/Fun-ASR-Nano-2512): the first family.

recognizer.py   FunAsrNano: features -> encoder (+CTC) -> LLM prompt -> text
encoder.py      the encoder+adaptor and CTC graphs in ONNX Runtime
prompt.py       the reference's ChatML prompt (language, hotwords, ITN)
section.py      its manifest section, as the converter writes it and the recognizer reads it
"""

from .recognizer import FAMILY, FILE_ROLES, FRONTEND, REQUIRED_FILES, SECTION, FunAsrNano, load

__all__ = ["FAMILY", "FILE_ROLES", "FRONTEND", "REQUIRED_FILES", "SECTION", "FunAsrNano", "load"]
