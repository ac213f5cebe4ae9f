"""SenseVoice-Small checkpoint (FunAudioLLM/SenseVoiceSmall) -> Tingji model folder.

convert.py      the conversion: encoder + CTC graphs, CMVN, tokens, manifest
checkpoint.py   reading and checking config.yaml, am.mvn, the BPE model and model.pt
bpe.py          the SentencePiece model file, read without the sentencepiece package
modules.py      query rows + SAN-M encoder + CTC head in PyTorch
"""

from .convert import FAMILY, WINDOW_SECONDS, convert, is_checkpoint

__all__ = ["FAMILY", "WINDOW_SECONDS", "convert", "is_checkpoint"]
