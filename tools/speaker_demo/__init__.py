"""Tingji's demo speaker model: a small CAM++ trained here on synthetic voices, and the voices themselves.

Random-weight CAM++ checkpoints (tools/tiny_campplus.py) prove the graph
computes what funasr computes, but separate nobody. tools/train_speaker_model.py
trains, on CPU in under half an hour, a CAM++ of the tiny checkpoint's sizes
(the official layout, so the product's exporter, graph and funasr comparison
apply unchanged) to tell espeak-ng voices apart, so tests can check who spoke
when. `voices` makes the speakers, the held-out voices and the conversations
the tests score; `train` is the training run (its docstring says how and why).
"""
