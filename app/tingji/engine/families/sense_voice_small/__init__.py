"""SenseVoice-Small (FunAudioLLM/SenseVoiceSmall): the fast family, no LLM.

recognizer.py   SenseVoiceSmall: features + CMVN -> encoder + CTC graph -> text, tags, times
rich.py         the query rows (language, ITN) and the tags the model answers with
tokens.py       SentencePiece detokenisation from the exported piece table
section.py      its manifest section, as the converter writes it and the recognizer reads it
"""

from .recognizer import FAMILY, FILE_ROLES, FRONTEND, REQUIRED_FILES, SECTION, SenseVoiceSmall, load

__all__ = ["FAMILY", "FILE_ROLES", "FRONTEND", "REQUIRED_FILES", "SECTION", "SenseVoiceSmall", "load"]
