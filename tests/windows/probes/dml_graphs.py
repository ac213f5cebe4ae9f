"""Proof 1, Windows side: every graph a model's family runs, on DirectML with CPU fallback disabled.

usage: python dml_graphs.py MODEL OUT.npz

The model is loaded through its family (`tingji.engine.families`) on DirectML, warmed as the
product warms it (a speaker model, family campplus, through `engine.speakers.model.SpeakerModel`).
The graphs are not listed here: every `OnnxGraphs` the family makes is caught as
it is made, the family's own warm-up calls say which inputs of each graph are frames (and give the
others, e.g. SenseVoice's query ids; and which are token slots, e.g. Paraformer's acoustic
embeddings), and each session (every GraphSpec, every bucket and slot length, fixed twins included)
runs once more through the product's own `OnnxGraphs.run` on seeded random frames (and slots)
shorter than the bucket, so the padding and the masks are the product's. The exact feeds each
session got, its outputs and its graph file go to OUT.npz for the Linux CPU run of the same graph.
Padding invariance: the same frames (and slots) also run on a DirectML session pinned to their real
lengths (no padding) and the valid rows are compared. Graphs a family runs on the CPU by design
(requested "cpu": BiCifParaformer's timestamp head, real length) are not DirectML's and are left out.
Prints one JSON line: the cases with their providers and padding-invariance errors.
"""

import json
import sys

import numpy as np

from tingji.engine import sessions
from tingji.engine.families import family_module
from tingji.engine.manifest import load_manifest
from tingji.engine.options import LoadOptions

SPEAKERS = "campplus"
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
    """The family's own calls (its warm-up): which inputs of a graph are frames or token slots, and the
    others' values."""
    slotted = {k: v.shape[1:] for k, v in (kwargs.get("slotted") or {}).items()}
    calls.setdefault(
        (id(self), role), ({k: v.shape[1:] for k, v in framed.items()}, kwargs.get("other") or {}, slotted)
    )
    return plain_run(self, role, framed, frames, **kwargs)


plain_options, plain_init, plain_feed = sessions.session_options, sessions.OnnxGraphs.__init__, sessions._feed
plain_providers, plain_run = sessions.OnnxGraphs._providers, sessions.OnnxGraphs.run
sessions.OnnxGraphs.run = recorded_run
sessions.OnnxGraphs._providers = dml_only
sessions.session_options = strict_options
sessions.OnnxGraphs.__init__ = caught_init
sessions._feed = recorded_feed


def valid_rows_error(padded: list[np.ndarray], plain: list[np.ndarray]) -> float:
    """The largest difference on the rows the unpadded run has (axis 1 is time, or token slots)."""
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


def random_rows(rng, n: int, shapes: dict) -> dict[str, np.ndarray]:
    return {name: rng.standard_normal((n,) + rest).astype(np.float32) for name, rest in shapes.items()}


def main(model: str, out: str) -> None:
    manifest = load_manifest(model)
    if manifest.family == SPEAKERS:  # a speaker model: loaded by engine.speakers, not as a recogniser
        from tingji.engine.speakers.model import SpeakerModel

        recognizer = SpeakerModel(model, provider="dml")
    else:
        recognizer = family_module(manifest.family, model).load(manifest, LoadOptions(provider="dml"))
    rng = np.random.default_rng(11)
    cases, arrays = [], {}
    on_dml = [graphs for graphs in made if graphs.requested != "cpu"]  # the CPU ones are the CPU's by design
    for graphs in on_dml:
        if graphs.provider != "dml":
            raise SystemExit(f"DirectML did not run: {graphs.warnings}")
        for role, graph in graphs._graphs.items():
            for key in graphs.keys(role):
                session = graph.sessions[key]
                # A slotted graph's key is (frame bucket, slot length); the others' the frame bucket.
                bucket, slot_bucket = key if isinstance(key, tuple) else (key, None)
                frames = (bucket * 3) // 4 if bucket else 37
                slots = (slot_bucket * 3) // 4 if slot_bucket else 23
                shapes, other, slot_shapes = calls[(id(graphs), role)]
                framed, slotted = random_rows(rng, frames, shapes), random_rows(rng, slots, slot_shapes)
                if not shapes and not slot_shapes:  # whole batches the family padded: random values, its own mask
                    other = {
                        k: v if k == "mask" or v.dtype.kind != "f" else rng.standard_normal(v.shape).astype(v.dtype)
                        for k, v in other.items()
                    }
                given = {"other": other, "slotted": slotted, "record": False}
                fed.clear()
                outputs = plain_run(graphs, role, framed, frames, bucket=bucket, slot_bucket=slot_bucket, **given)
                case = {
                    "family": manifest.family,
                    "role": role,
                    "bucket": key,
                    "frames": frames,
                    "slots": slots if slot_shapes else None,
                    "graph": session._model_path,
                    "providers": session.get_providers(),
                    "inputs": sorted(fed[0]),
                    "outputs": len(outputs),
                    "invariance": None,
                    # No frame-axis input: the family pads whole batches itself (CAM++'s batch twin), so there
                    # is no padding of `OnnxGraphs` to undo here; tests/windows/test_dml_speakers.py checks it.
                    "padded_by_family": not shapes and not slot_shapes,
                }
                n = len(cases)
                arrays.update({f"{n}/in/{k}": v for k, v in fed[0].items()})
                arrays.update({f"{n}/out/{i}": v for i, v in enumerate(outputs)})
                if bucket is not None and graph.spec.padded and not case["padded_by_family"]:
                    # The same frames (and slots) with no padding at all, on a DirectML session pinned to them.
                    exact = (frames, slots) if slot_bucket is not None else frames
                    graph.sessions[exact] = graphs._make_session(graph.spec, exact)
                    unpadded = slots if slot_bucket is not None else None
                    plain = plain_run(graphs, role, framed, frames, bucket=frames, slot_bucket=unpadded, **given)
                    del graph.sessions[exact]
                    case["invariance"] = valid_rows_error(outputs, plain)
                cases.append(case)
    np.savez(out, **arrays)
    print(json.dumps({"family": manifest.family, "device": on_dml[0].device, "cases": cases}))
    del recognizer


if __name__ == "__main__":
    main(*sys.argv[1:3])
