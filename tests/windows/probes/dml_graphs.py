"""Proof 1, Windows side: every graph a model's family runs, on DirectML with CPU fallback disabled.

usage: python dml_graphs.py MODEL OUT.npz

The model is loaded through its family (`tingji.engine.families`) on DirectML, warmed as the
product warms it. The graphs are not listed here: every `OnnxGraphs` the family makes is caught as
it is made, the family's own warm-up calls say which inputs of each graph are frames (and give the
others, e.g. SenseVoice's query ids), and each session (every GraphSpec, every bucket, fixed twins
included) runs once more through the product's own `OnnxGraphs.run` on seeded random frames shorter
than the bucket, so the padding and the mask are the product's. The exact feeds each session got,
its outputs and its graph file go to OUT.npz for the Linux CPU run of the same graph. Padding
invariance: the same frames also run on a DirectML session pinned to their real length (no
padding) and the valid rows are compared.
Prints one JSON line: the cases with their providers and padding-invariance errors.
"""

import json
import sys

import numpy as np

from tingji.engine import sessions
from tingji.engine.families import family_module
from tingji.engine.families.base import LoadOptions
from tingji.engine.manifest import load_manifest

made: list = []
fed: list = []
calls: dict = {}


def strict_options(provider, *args, **kwargs):
    """The product's session options, with DirectML's CPU fallback off: a node DirectML cannot take
    fails the session instead of moving to the CPU."""
    opts = plain_options(provider, *args, **kwargs)
    if provider == "dml":
        opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    return opts


def dml_only(self):
    """The product's providers without the CPU behind DirectML (ONNX Runtime refuses both with the above)."""
    return (
        [p for p in plain_providers(self) if p != "CPUExecutionProvider"]
        if self.provider == "dml"
        else plain_providers(self)
    )


def caught_init(self, *args, **kwargs):
    plain_init(self, *args, **kwargs)
    made.append(self)


def recorded_feed(session, arrays):
    feed = plain_feed(session, arrays)
    fed.append(feed)
    return feed


def recorded_run(self, role, framed, frames, **kwargs):
    """The family's own calls (its warm-up): which inputs of a graph are frames, and the others' values."""
    calls.setdefault((id(self), role), ({k: v.shape[1:] for k, v in framed.items()}, kwargs.get("other") or {}))
    return plain_run(self, role, framed, frames, **kwargs)


plain_options, plain_init, plain_feed = sessions.session_options, sessions.OnnxGraphs.__init__, sessions._feed
plain_providers, plain_run = sessions.OnnxGraphs._providers, sessions.OnnxGraphs.run
sessions.OnnxGraphs.run = recorded_run
sessions.OnnxGraphs._providers = dml_only
sessions.session_options = strict_options
sessions.OnnxGraphs.__init__ = caught_init
sessions._feed = recorded_feed


def valid_rows_error(padded: list[np.ndarray], plain: list[np.ndarray]) -> float:
    """The largest difference on the rows the unpadded run has (axis 1 is time)."""
    worst = 0.0
    for p, u in zip(padded, plain):
        if p.shape != u.shape:
            assert p.shape[0] == u.shape[0] and p.shape[2:] == u.shape[2:] and p.shape[1] >= u.shape[1], (
                p.shape,
                u.shape,
            )
            p = p[:, : u.shape[1]]
        worst = max(worst, float(np.abs(p.astype(np.float64) - u).max()) if u.size else 0.0)
    return worst


def main(model: str, out: str) -> None:
    manifest = load_manifest(model)
    family = family_module(manifest.family, model)
    recognizer = family.load(manifest, LoadOptions(provider="dml"))
    rng = np.random.default_rng(11)
    cases, arrays = [], {}
    for graphs in made:
        if graphs.provider != "dml":
            raise SystemExit(f"DirectML did not run: {graphs.warnings}")
        for role, graph in graphs._graphs.items():
            for bucket, session in list(graph.sessions.items()):
                frames = (bucket * 3) // 4 if bucket else 37
                shapes, other = calls[(id(graphs), role)]
                framed = {
                    name: rng.standard_normal((frames,) + rest).astype(np.float32) for name, rest in shapes.items()
                }
                fed.clear()
                outputs = plain_run(graphs, role, framed, frames, other=other, bucket=bucket, record=False)
                case = {
                    "family": manifest.family,
                    "role": role,
                    "bucket": bucket,
                    "frames": frames,
                    "graph": session._model_path,
                    "providers": session.get_providers(),
                    "inputs": sorted(fed[0]),
                    "outputs": len(outputs),
                    "invariance": None,
                }
                n = len(cases)
                arrays.update({f"{n}/in/{k}": v for k, v in fed[0].items()})
                arrays.update({f"{n}/out/{i}": v for i, v in enumerate(outputs)})
                if bucket is not None and graph.spec.padded:
                    # The same frames with no padding at all, on a DirectML session pinned to their length.
                    graph.sessions[frames] = graphs._make_session(graph.spec, frames)
                    plain = plain_run(graphs, role, framed, frames, other=other, bucket=frames, record=False)
                    del graph.sessions[frames]
                    case["invariance"] = valid_rows_error(outputs, plain)
                cases.append(case)
    np.savez(out, **arrays)
    print(json.dumps({"family": manifest.family, "device": made[0].device, "cases": cases}))
    del recognizer


if __name__ == "__main__":
    main(*sys.argv[1:3])
