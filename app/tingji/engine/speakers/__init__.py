"""Who spoke when: speaker embeddings (CAM++) and FunASR's clustering, after transcription.

`model` loads a speaker model folder (family `campplus`) and embeds short
windows of audio; `cluster` groups the windows' embeddings into speakers
(FunASR's spectral clustering back-end); `diarize` cuts speech spans into
windows as FunASR does, and turns the windows' labels into speaker turns and
a speaker per transcript segment. Nothing here imports Qt or the model manager.
"""
