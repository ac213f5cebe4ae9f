"""Tingji's demo speaker model: a small CAM++ trained on synthetic voices, and the voices themselves.

Random-weight CAM++ checkpoints (tools/tiny_campplus.py) prove the graph
computes what funasr computes, but separate nobody. `gpu_train` trains a CAM++
in the official layout (so the product's exporter, graph and funasr comparison
apply unchanged) on one GPU to tell espeak-ng voices apart, from the voices
`features` synthesises; tools/train_speaker_model.py --from-gpu exports its
weights. `voices` makes the speakers, the held-out voices and the conversations
the tests score; `train` is the earlier CPU-only run (a weaker model in half an
hour on two cores) and the export.
"""
