"""The audio encoder + adaptor (and CTC head) in ONNX Runtime.

Provider choice: DirectML on Windows when present, then CUDA, then CPU. A
provider that fails to create its session, to warm up, or later to run, is
dropped for CPU with a warning; `provider` always says what actually runs.

Shape policy. DirectML compiles kernels for the first shape a session sees
and recompiles for every new one (hundreds of ms to seconds), so under the
`fixed` policy every call is padded to one of a few bucket lengths - the 60 s
window and a short one for dictation - each a session warmed at load. The
exported graph is padding-invariant (masked), so padding changes nothing on
the valid frames. On CPU padding only costs time, so the `dynamic` policy runs
the real length.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import ModelError, TingjiError
from .manifest import Manifest
from .threads import default_threads

log = logging.getLogger(__name__)

PROVIDERS = {"dml": "DmlExecutionProvider", "cuda": "CUDAExecutionProvider", "cpu": "CPUExecutionProvider"}
# Short fixed bucket for dictation under the fixed policy: 10 s of audio.
SHORT_BUCKET_FRAMES = 167


def available_providers() -> list[str]:
    import onnxruntime as ort

    names = set(ort.get_available_providers())
    return [short for short, full in PROVIDERS.items() if full in names]


def pick_provider(requested: str = "auto") -> str:
    """`auto`: DirectML on Windows when present, then CUDA, then CPU."""
    requested = (requested or "auto").lower()
    have = available_providers()
    if requested == "auto":
        if "dml" in have and sys.platform == "win32":
            return "dml"
        if "cuda" in have:
            return "cuda"
        return "cpu"
    if requested not in PROVIDERS:
        raise TingjiError(f"unknown provider {requested!r} (choose auto, dml, cuda or cpu)")
    return requested


def session_options(provider: str, threads: int | None, frames_override: int | None = None, *,
                    exact: bool = False, dim_names: Sequence[str | None] = ("batch", "frames")):
    """ONNX Runtime settings, chosen per provider.

    * full graph optimisation (fused MatMul+Add, LayerNorm, attention
      patterns); `exact` stops at the basic level, because the extended
      fusions reorder float sums and move outputs by ~1e-4 against the
      reference;
    * CPU: intra-op threads = usable cores (capped), one inter-op thread
      (the graph is a chain, parallel branches buy nothing), and no spinning
      after a run, because llama.cpp takes the same cores right after the
      encoder and spinning ORT workers would steal them;
    * DirectML: no memory pattern and sequential execution, as the provider
      requires; shapes pinned by free-dimension overrides so the session is
      fully static.
    """
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_BASIC if exact
                                     else ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    if provider == "cpu":
        opts.intra_op_num_threads = threads or default_threads()
        opts.enable_cpu_mem_arena = True
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if provider == "dml":
        opts.enable_mem_pattern = False
    if frames_override is not None:
        batch, frames = (list(dim_names) + [None, None])[:2]
        if batch:
            opts.add_free_dimension_override_by_name(batch, 1)
        if frames:
            opts.add_free_dimension_override_by_name(frames, frames_override)
    return opts


_ORT_FLOAT = {"tensor(float)": np.float32, "tensor(float16)": np.float16}


def _feed(session, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Inputs the graph declares, in the dtype it declares.

    Our graphs take fp32 features and a mask; other exports of the same
    contract (peer releases) may want fp16 inputs or have no mask.
    """
    feed = {}
    for spec in session.get_inputs():
        if spec.name in arrays:
            feed[spec.name] = arrays[spec.name].astype(_ORT_FLOAT.get(spec.type, np.float32), copy=False)
    return feed


@dataclass
class EncoderOutput:
    enc: np.ndarray  # [T, encoder_dim]
    adaptor: np.ndarray  # [T, llm_dim]
    frames: int


@dataclass
class _Graph:
    """One ONNX file and its sessions: one per bucket (fixed policy) or a single one."""

    path: Path
    sessions: dict[int | None, object] = field(default_factory=dict)


class AudioEncoder:
    """Runs `encoder` (and `ctc`) of a model folder under one provider and shape policy."""

    def __init__(self, manifest: Manifest, provider: str = "auto", *, policy: str | None = None,
                 buckets: Sequence[int] | None = None, threads: int | None = None, warm: bool = True,
                 exact: bool = False) -> None:
        self.manifest = manifest
        self.exact = exact
        self.window_frames = manifest.window_frames
        self.threads = threads
        self.requested = provider
        self.provider = pick_provider(provider)
        self.policy = policy or ("fixed" if self.provider == "dml" else "dynamic")
        if self.policy not in ("fixed", "dynamic"):
            raise TingjiError(f"unknown shape policy {self.policy!r}")
        if self.policy == "fixed":
            chosen = sorted(set(buckets or (SHORT_BUCKET_FRAMES, self.window_frames)))
            self.buckets = tuple(b for b in chosen if b <= self.window_frames)
            if self.buckets[-1] != self.window_frames:
                self.buckets += (self.window_frames,)
        else:
            self.buckets = ()
        self.warnings: list[str] = []
        self.shapes_seen: list[tuple[str, tuple[int, ...]]] = []  # (graph, input shape) of every run
        self._graphs: dict[str, _Graph] = {}
        self._open(warm)

    # -- sessions -------------------------------------------------------------

    def _file_for(self, role: str, bucket: int | None) -> tuple[Path, int | None]:
        """Which file serves a bucket, and the free-dimension override it needs."""
        if role == "encoder" and bucket == self.window_frames and self.manifest.file("encoder_fixed") is not None:
            return self.manifest.file("encoder_fixed"), None  # already static
        return self.manifest.file(role), bucket

    def _make_session(self, role: str, bucket: int | None):
        import onnxruntime as ort

        path, override = self._file_for(role, bucket)
        info = self.manifest.extra.get(role) or {}
        opts = session_options(self.provider, self.threads, override, exact=self.exact,
                               dim_names=info.get("dim_names") or ("batch", "frames"))
        if PROVIDERS[self.provider] not in ort.get_available_providers():
            raise RuntimeError("not available in this ONNX Runtime installation")
        providers = [PROVIDERS[self.provider]]
        if self.provider != "cpu":
            providers.append(PROVIDERS["cpu"])
        session = ort.InferenceSession(str(path), sess_options=opts, providers=providers)
        # ONNX Runtime quietly drops a provider it cannot initialise; make that a real failure
        # so the fallback below reports it instead of claiming a GPU that is not used.
        if session.get_providers()[0] != PROVIDERS[self.provider]:
            raise RuntimeError(f"{PROVIDERS[self.provider]} could not be initialised")
        return session

    def _open(self, warm: bool) -> None:
        roles = ["encoder"] + (["ctc"] if self.manifest.file("ctc") is not None else [])
        keys: list[int | None] = list(self.buckets) if self.policy == "fixed" else [None]
        try:
            for role in roles:
                graph = _Graph(self.manifest.file(role))
                # A CTC graph without a mask cannot be padded: one real-length session serves every bucket.
                for key in ([None] if role == "ctc" and not self._ctc_masked else keys):
                    graph.sessions[key] = self._make_session(role, key)
                self._graphs[role] = graph
            if warm:
                self.warm_up()
        except Exception as exc:
            if self.provider == "cpu":
                raise ModelError(f"{self.manifest.folder}: ONNX Runtime cannot load the encoder ({exc})") from None
            self._fall_back(exc)

    def _fall_back(self, exc: BaseException) -> None:
        message = f"{self.provider.upper()} failed ({str(exc)[:200]}); using CPU"
        log.warning(message)
        self.warnings.append(message)
        self.provider = "cpu"
        self._graphs.clear()
        self._open(warm=True)

    def warm_up(self) -> None:
        """One run per session, so kernel compilation happens at load, not on the user's first file."""
        dims = self.manifest.extra.get("encoder", {})
        feat_dim = int(dims.get("input_size", 560))
        for bucket in (self.buckets if self.policy == "fixed" else (None,)):
            out = self._run_padded(np.zeros((8, feat_dim), np.float32), bucket, record=False)
            if "ctc" in self._graphs:
                self._run_ctc(out.enc, bucket, record=False)

    # -- running ----------------------------------------------------------------

    def bucket_for(self, frames: int) -> int | None:
        if frames > self.window_frames:
            raise TingjiError(f"internal: {frames} frames exceed the {self.window_frames}-frame window")
        if self.policy == "dynamic":
            return None
        return next(b for b in self.buckets if b >= frames)

    def _run_padded(self, feats: np.ndarray, bucket: int | None, record: bool = True) -> EncoderOutput:
        t = feats.shape[0]
        length = t if bucket is None else bucket
        x = np.zeros((1, length, feats.shape[1]), np.float32)
        x[0, :t] = feats
        mask = np.zeros((1, length), np.float32)
        mask[0, :t] = 1.0
        session = self._graphs["encoder"].sessions[bucket]
        if record:
            self.shapes_seen.append(("encoder", x.shape))
        enc, adaptor = session.run(None, _feed(session, {"lfr_feat": x, "mask": mask}))
        return EncoderOutput(enc=np.asarray(enc[0, :t], np.float32), adaptor=np.asarray(adaptor[0, :t], np.float32),
                             frames=t)

    def encode(self, feats: np.ndarray) -> EncoderOutput:
        """Encoder and adaptor rows for one window's LFR features [T, 560]."""
        if feats.shape[0] == 0:
            raise TingjiError("internal: empty window")
        try:
            return self._run_padded(feats, self.bucket_for(feats.shape[0]))
        except TingjiError:
            raise
        except Exception as exc:
            if self.provider == "cpu":
                raise
            self._fall_back(exc)  # a GPU driver failing mid-file: finish on CPU
            return self._run_padded(feats, self.bucket_for(feats.shape[0]))

    @property
    def has_ctc(self) -> bool:
        return "ctc" in self._graphs

    def ctc(self, enc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Top-k CTC log-probs and ids per valid frame: ([T, k], [T, k])."""
        return self._run_ctc(enc, self.bucket_for(enc.shape[0]))

    @property
    def _ctc_masked(self) -> bool:
        return (self.manifest.extra.get("ctc") or {}).get("mask", True) is not False

    def _run_ctc(self, enc: np.ndarray, bucket: int | None, record: bool = True) -> tuple[np.ndarray, np.ndarray]:
        t = enc.shape[0]
        if not self._ctc_masked:
            bucket = None  # a graph without a mask (peer releases) must see the real length
        session = self._graphs["ctc"].sessions[bucket]
        length = t if bucket is None else bucket
        x = np.zeros((1, length, enc.shape[1]), np.float32)
        x[0, :t] = enc
        mask = np.zeros((1, length), np.float32)
        mask[0, :t] = 1.0
        if record:
            self.shapes_seen.append(("ctc", x.shape))
        values, ids = session.run(None, _feed(session, {"enc_output": x, "mask": mask}))
        return np.asarray(values[0, :t], np.float32), ids[0, :t]

    def session_shapes(self) -> dict[str, list[tuple[int, ...]]]:
        """The input shapes each warmed session was built for (fixed policy), for checks."""
        return {role: [(1, b) for b in g.sessions if b is not None] for role, g in self._graphs.items()}
