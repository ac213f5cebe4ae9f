"""ONNX Runtime sessions for a model's graphs: provider, fallback, and the shape policy.

Every family runs its encoder (and CTC head) through this module, so the
lessons learnt once apply to all of them:

Provider choice: DirectML on Windows when present, then CUDA, then CPU. A
provider that fails to create its sessions, to warm up, or later to run, is
dropped for CPU with a warning; `provider` always says what actually runs.

Shape policy. DirectML compiles kernels for the first shape a session sees
and recompiles for every new one (hundreds of ms to seconds), so under the
`fixed` policy every call is padded to one of a few bucket lengths - the full
window and a short one for dictation - each a session warmed at load. The
exported graphs are padding-invariant (a 0/1 frame mask reaches every
layer), so padding changes nothing on the valid frames. On CPU padding only
costs time, so the `dynamic` policy runs the real length.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ErrorReport, ModelError, TingjiError, first_line, warning
from . import messages, ort_cache
from .families.base import LoadOptions
from .heap import release_free_heap
from .manifest import Manifest
from .threads import default_threads

log = logging.getLogger(__name__)

# ONNX Runtime's execution providers by the short names Tingji uses, and what a user may ask for (the
# settings, `--provider`): one of them or "auto" (`pick_provider`); each one's name for people.
PROVIDERS = {"dml": "DmlExecutionProvider", "cuda": "CUDAExecutionProvider", "cpu": "CPUExecutionProvider"}
PROVIDER_CHOICES = ("auto", *PROVIDERS)
PROVIDER_NAMES = {"dml": "DirectML", "cuda": "CUDA", "cpu": "CPU"}


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
        raise TingjiError(messages.UNKNOWN_PROVIDER, provider=requested)
    return requested


def session_options(
    provider: str,
    threads: int | None,
    frames_override: int | None = None,
    *,
    exact: bool = False,
    dim_names: Sequence[str | None] = ("batch", "frames"),
):
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

    The CPU arena stays on (allocations reuse its blocks within a run), but
    `run_options` shrinks it after every long run: otherwise each session
    keeps the peak of the longest window it has seen for good, and the
    sessions' peaks add up instead of taking turns.
    """
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_BASIC if exact else ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    )
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


# Runs of at most this share of the longest window (15 s of 60) keep their arena blocks; see `run_options`.
KEEP_BLOCKS_SHARE = 4


def run_options(provider: str, shrink: bool = True):
    """Per-run settings: on CPU, give the arena's free blocks back to the system when a long run ends.

    Shrunk, the sessions keep little between runs and the process peak is
    the larger of theirs instead of the sum; touching fresh pages again costs
    a small share of a long run
    (benchmarks/README.md#onnx-runtimes-arena-and-glibcs-heaps-after-long-runs).
    A short run is another matter: its page faults are a large share of it
    (Qwen3-ASR's 480-channel convolution maps at 3 s). So runs of up to a
    quarter of the longest window keep their blocks (`shrink=False`), reused
    by every later run and given back by the next long one
    (benchmarks/README.md#short-runs-keep-onnx-runtimes-arena-2026-11-26-amd-epyc-2-threads).
    """
    import onnxruntime as ort

    options = ort.RunOptions()
    if provider == "cpu" and shrink:
        options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return options


_ORT_FLOAT = {"tensor(float)": np.float32, "tensor(float16)": np.float16}


@dataclass(frozen=True)
class GraphSpec:
    """How one graph of a model folder is run.

    `role` is its manifest file role. `padded` graphs take a `mask` input and
    may be zero-padded to a bucket; a graph without one (peer releases) must
    always see the real length. `fixed_role` names a fully static twin of the
    graph exported at the window length, used for that bucket. `dim_names`
    are the symbolic batch and frame dimensions that free-dimension overrides
    pin.
    """

    role: str
    padded: bool = True
    fixed_role: str | None = None
    dim_names: tuple[str | None, ...] = ("batch", "frames")


@dataclass
class _Graph:
    spec: GraphSpec
    sessions: dict[int | None, object] = field(default_factory=dict)


class OnnxGraphs:
    """The sessions of a model's graphs under one provider and shape policy.

    `run(role, inputs, frames)` pads the frame-axis inputs to the bucket the
    policy picks, adds the frame mask, and returns the raw outputs (batch
    dimension kept, padding rows included: the caller knows which rows of
    its outputs are valid).
    """

    def __init__(
        self,
        manifest: Manifest,
        specs: Sequence[GraphSpec],
        options: LoadOptions,
        *,
        window_frames: int | None = None,
        short_bucket: int | None = None,
        warm: Callable[[OnnxGraphs], None] | None = None,
    ) -> None:
        """Open the sessions of the `specs` whose files the manifest lists.

        Args:
            manifest: The model folder's manifest.
            specs: The graphs, by manifest file role.
            options: The engine's load options; the provider, shape policy,
                buckets, threads, exact mode, warm-up and graph cache apply here.
            window_frames: The frame-axis length of a full window (default: the
                manifest's), the largest fixed bucket.
            short_bucket: The fixed policy's short bucket, unless `options`
                name the buckets.
            warm: Runs the sessions once after they are made (with
                `options.warm`), and again after a fallback to the CPU.
        """
        window_frames = window_frames or manifest.window_frames
        self.manifest = manifest
        self.graph_cache = options.graph_cache
        self.specs = {s.role: s for s in specs if manifest.file(s.role) is not None}
        self.exact = options.exact
        self.threads = options.threads
        self.window_frames = window_frames
        self.requested = options.provider
        self.provider = pick_provider(options.provider)
        self.policy = options.policy or ("fixed" if self.provider == "dml" else "dynamic")
        if self.policy not in ("fixed", "dynamic"):
            raise TingjiError(messages.UNKNOWN_SHAPE_POLICY, policy=self.policy)
        if self.policy == "fixed":
            default = (short_bucket, window_frames) if short_bucket else (window_frames,)
            chosen = sorted(set(options.buckets or default))
            self.buckets = tuple(b for b in chosen if b <= window_frames)
            if not self.buckets or self.buckets[-1] != window_frames:
                self.buckets += (window_frames,)
        else:
            self.buckets = ()
        self.warnings: list[ErrorReport] = []
        self.shapes_seen: list[tuple[str, tuple[int, ...]]] = []  # (role, padded input shape) of every run
        self._warm = warm if options.warm else None
        self._graphs: dict[str, _Graph] = {}
        self._open()

    # -- sessions -------------------------------------------------------------

    def has(self, role: str) -> bool:
        return role in self._graphs

    def _make_session(self, spec: GraphSpec, bucket: int | None):
        import onnxruntime as ort

        role, override = spec.role, bucket
        if bucket == self.window_frames and spec.fixed_role and self.manifest.file(spec.fixed_role) is not None:
            role, override = spec.fixed_role, None  # already static
        path = self.manifest.file(role)
        opts = session_options(self.provider, self.threads, override, exact=self.exact, dim_names=spec.dim_names)
        if PROVIDERS[self.provider] not in ort.get_available_providers():
            raise RuntimeError("not available in this ONNX Runtime installation")
        providers = [PROVIDERS[self.provider]]
        if self.provider != "cpu":
            providers.append(PROVIDERS["cpu"])
        if self.provider == "cpu" and self.graph_cache is not None:
            fields = ort_cache.entry_fields(self.manifest, role, opts.graph_optimization_level, override)
            return ort_cache.session(path, opts, providers, self.graph_cache, fields)
        session = ort.InferenceSession(str(path), sess_options=opts, providers=providers)
        # ONNX Runtime quietly drops a provider it cannot initialise; make that a real failure
        # so the fallback below reports it instead of claiming a GPU that is not used.
        if session.get_providers()[0] != PROVIDERS[self.provider]:
            raise RuntimeError(f"{PROVIDERS[self.provider]} could not be initialised")
        return session

    def _open(self) -> None:
        keys: list[int | None] = list(self.buckets) if self.policy == "fixed" else [None]
        role = "model"
        try:
            for role, spec in self.specs.items():
                graph = _Graph(spec)
                # A graph without a mask cannot be padded: one real-length session serves every bucket.
                for key in keys if spec.padded else [None]:
                    graph.sessions[key] = self._make_session(spec, key)
                self._graphs[role] = graph
            role = "model"  # warming runs every graph
            if self._warm is not None:
                self._warm(self)
        except Exception as exc:
            if self.provider == "cpu":
                raise ModelError(
                    messages.GRAPH_UNLOADABLE, folder=self.manifest.folder, role=role, reason=str(exc)
                ) from None
            self._fall_back(exc)

    def _fall_back(self, exc: BaseException) -> None:
        fell_back = warning(messages.PROVIDER_FELL_BACK, provider=self.provider.upper(), reason=first_line(exc)[:200])
        log.warning(fell_back.text)
        self.warnings.append(fell_back)
        self.provider = "cpu"
        self._graphs.clear()
        self._open()

    def session_shapes(self) -> dict[str, list[tuple[int, int]]]:
        """The input shapes each warmed session was built for (fixed policy), for checks."""
        return {role: [(1, b) for b in g.sessions if b is not None] for role, g in self._graphs.items()}

    # -- running ----------------------------------------------------------------

    def bucket_for(self, frames: int) -> int | None:
        """The padded length for `frames` valid frames (None: the real length)."""
        if frames > self.window_frames:
            raise TingjiError(messages.WINDOW_TOO_LONG, frames=frames, limit=self.window_frames)
        if self.policy == "dynamic":
            return None
        return next(b for b in self.buckets if b >= frames)

    def run(
        self,
        role: str,
        framed: dict[str, np.ndarray],
        frames: int,
        *,
        other: dict[str, np.ndarray] | None = None,
        bucket: int | None | str = "policy",
        record: bool = True,
    ) -> list[np.ndarray]:
        """Run `role` on `framed` inputs ([frames, ...] each, batch added here) and `other` inputs (as given).

        A GPU provider failing mid-file (a driver reset) falls back to the CPU
        and the call is repeated there, so the file still finishes.
        """
        try:
            return self._run(role, framed, frames, other or {}, bucket, record)
        except TingjiError:
            raise
        except Exception as exc:
            if self.provider == "cpu":
                raise
            self._fall_back(exc)
            return self._run(role, framed, frames, other or {}, "policy", record)

    def _run(
        self,
        role: str,
        framed: dict[str, np.ndarray],
        frames: int,
        other: dict[str, np.ndarray],
        bucket: int | None | str,
        record: bool,
    ) -> list[np.ndarray]:
        graph = self._graphs[role]
        key = self.bucket_for(frames) if bucket == "policy" else bucket
        if not graph.spec.padded:
            key = None
        length = frames if key is None else key
        arrays: dict[str, np.ndarray] = dict(other)
        for name, x in framed.items():
            padded = np.zeros((1, length) + x.shape[1:], np.float32)
            padded[0, :frames] = x
            arrays[name] = padded
        mask = np.zeros((1, length), np.float32)
        mask[0, :frames] = 1.0
        arrays.setdefault("mask", mask)
        session = graph.sessions[key]
        if record:
            shape = next(iter(arrays[n] for n in framed)).shape if framed else (1, length)
            self.shapes_seen.append((role, tuple(shape)))
        shrink = length * KEEP_BLOCKS_SHARE > self.window_frames  # the run's size, padding included
        outputs = session.run(None, _feed(session, arrays), run_options(self.provider, shrink))
        if self.provider == "cpu" and shrink:
            # What the shrunk arena frees below glibc's mmap threshold (tensors of a few MB, per-head
            # attention scores, ORT's bookkeeping) would stay resident in glibc's heaps, under every
            # later peak (benchmarks/README.md#onnx-runtimes-arena-and-glibcs-heaps-after-long-runs).
            release_free_heap()
        return outputs


def _feed(session, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Inputs the graph declares, in the dtype it declares.

    Our graphs take fp32 features and a mask; other exports of the same
    contract (peer releases) may want fp16 inputs or have no mask.
    """
    feed = {}
    for spec in session.get_inputs():
        if spec.name in arrays:
            x = arrays[spec.name]
            if x.dtype.kind == "f":
                x = x.astype(_ORT_FLOAT.get(spec.type, np.float32), copy=False)
            feed[spec.name] = x
    return feed
