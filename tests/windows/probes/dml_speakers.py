"""Issue 45's proof 5, Windows side: a speaker model's fixed batch twin on DirectML, CPU fallback disabled.

usage: python dml_speakers.py MODEL CLIPS.npz OUT.npz
CLIPS.npz holds feature clips "0", "1", ... ([T, feat_dim] each, in that order). The model loads as the
engine loads a companion (`SpeakerModel` with `LoadOptions(provider="dml")`, warmed at load), with
DirectML's CPU fallback off: a node DirectML cannot take fails the session instead of moving to the CPU.
`embed_features` embeds every clip the way the labels step does (the fixed policy). OUT.npz gets the
embeddings ("embeddings") and the exact feeds of each run after load ("run/N/feats", "run/N/mask") for the
Linux CPU run of the same graph. Prints one JSON line: the provider, each session's providers and graph file,
the input shapes of the runs after load.
"""

import json
import sys
from pathlib import Path

import numpy as np

from tingji.engine import sessions
from tingji.engine.options import LoadOptions
from tingji.engine.speakers.model import SpeakerModel

fed: list = []


def strict_options(provider, *args, **kwargs):
    opts = plain_options(provider, *args, **kwargs)
    if provider == "dml":
        opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    return opts


def dml_only(self):
    """DirectML alone (ONNX Runtime refuses the CPU behind it with fallback disabled)."""
    listed = plain_providers(self)
    return [p for p in listed if p != "CPUExecutionProvider"] if self.provider == "dml" else listed


def recorded_feed(session, arrays):
    feed = plain_feed(session, arrays)
    fed.append(feed)
    return feed


plain_options, plain_providers, plain_feed = sessions.session_options, sessions.OnnxGraphs._providers, sessions._feed
sessions.session_options = strict_options
sessions.OnnxGraphs._providers = dml_only
sessions._feed = recorded_feed


def main(model: str, clips_file: str, out: str) -> None:
    speaker = SpeakerModel(model, LoadOptions(provider="dml"))
    warm_runs = len(fed)
    fed.clear()
    with np.load(clips_file) as saved:
        clips = [saved[str(i)] for i in range(len(saved.files))]
    embeddings = speaker.embed_features(clips)
    graphs = speaker.graphs
    report = {
        "provider": graphs.provider,
        "policy": graphs.policy,
        "device": graphs.device,
        "warnings": [w.text for w in graphs.warnings],
        "fixed_batch": speaker.fixed_batch,
        "warm_runs": warm_runs,
        "sessions": {
            str(key): {"providers": session.get_providers(), "graph": Path(session._model_path).name}
            for key, session in graphs._graphs["embedder"].sessions.items()
        },
        "shapes": [{k: list(v.shape) for k, v in feed.items()} for feed in fed],
    }
    arrays = {"embeddings": embeddings}
    for n, feed in enumerate(fed):
        arrays.update({f"run/{n}/{k}": v for k, v in feed.items()})
    np.savez(out, **arrays)
    print(json.dumps(report))


if __name__ == "__main__":
    main(*sys.argv[1:4])
