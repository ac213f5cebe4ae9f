"""Paraformer (funasr Paraformer, BiCifParaformer): Chinese, non-autoregressive, per-token timestamps.

recognizer.py   Paraformer: features + CMVN -> encoder + CIF weights -> CIF -> decoder -> words, times
cif.py          integrate-and-fire and the timestamp rules, in NumPy, as each variant's reference computes them
text.py         tokens -> words and text (funasr's sentence_postprocess rules, `@@` pieces, abbreviations)
section.py      the manifest's `paraformer` section, read strictly
"""

from .recognizer import FAMILY, FILE_ROLES, FRONTEND, REQUIRED_FILES, SECTION, Paraformer, load

__all__ = ["FAMILY", "FILE_ROLES", "FRONTEND", "REQUIRED_FILES", "SECTION", "Paraformer", "load"]
