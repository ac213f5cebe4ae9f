"""Qwen3-ASR (Qwen/Qwen3-ASR-0.6B, -1.7B): the multilingual family with language detection.

recognizer.py   Qwen3Asr: log-mel -> audio tower -> LLM prompt -> language + text
encoder.py      the audio tower graph in ONNX Runtime
prompt.py       the release's ChatML layout, forced language, parsing the answer
section.py      its manifest section, as the converter writes it and the recognizer reads it
"""

from .recognizer import FAMILY, FILE_ROLES, FRONTEND, REQUIRED_FILES, SECTION, Qwen3Asr, load

__all__ = ["FAMILY", "FILE_ROLES", "FRONTEND", "REQUIRED_FILES", "SECTION", "Qwen3Asr", "load"]
