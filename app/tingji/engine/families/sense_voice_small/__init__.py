"""SenseVoice-Small (FunAudioLLM/SenseVoiceSmall): the fast family, no LLM.

recognizer.py   SenseVoiceSmall: features + CMVN -> encoder + CTC graph -> text, tags, times
rich.py         the query rows (language, ITN) and the tags the model answers with
tokens.py       SentencePiece detokenisation from the exported piece table
"""

from .recognizer import FAMILY, FILE_ROLES, REQUIRED_FILES, SenseVoiceSmall, load

__all__ = ["FAMILY", "FILE_ROLES", "REQUIRED_FILES", "SenseVoiceSmall", "load"]
