"""ONNX Runtime sessions for a model's graphs: provider, fallback, and the shape policy.

Every family runs its encoder (and CTC head) through this module, and so do
the companion models - punctuation, speakers, the VAD (`engine.companions`) -,
so the lessons learnt once apply to all of them:

Provider choice: DirectML on Windows when present, then CUDA, then CPU. A
provider that fails to create its sessions, to warm up, or later to run, is
dropped for CPU with one warning naming the reason; `provider` always says
what actually runs, and the CPU then runs the real length, as if it had been
chosen. DirectML runs on the adapter `engine.adapters` picks (the
high-performance GPU unless the caller names another), passed to ONNX
Runtime by its DXGI index; `device` names it.

Shape policy. DirectML compiles kernels for the first shape a session sees
and recompiles for every new one (hundreds of ms to seconds), so under the
`fixed` policy every call is padded to one of a few bucket lengths - the full
window and a short one for dictation - each a session warmed at load. The
exported graphs are padding-invariant (a 0/1 frame mask reaches every
layer), so padding changes nothing on the valid frames. On CPU padding only
costs time, so the `dynamic` policy runs the real length.

A graph may have a second padded axis, token slots (Paraformer's decoder
reads one embedding per token, and how many tokens a window holds is only
known after the encoder ran): each frame bucket then has a few slot
lengths, each its own warmed session, and a `slot_mask` input marks the
valid slots.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ErrorReport, ModelError, TingjiError, first_line, warning
from . import adapters, messages, ort_cache, ort_compat
from .heap import release_free_heap
from .manifest import Manifest
from .options import LoadOptions
from .threads import default_threads

log = logging.getLogger(__name__)

# ONNX Runtime's execution providers by the short names Tingji uses, and what a user may ask for (the
# settings, `--provider`): one of them or "auto" (`pick_provider`); each one's name for people.
PROVIDERS = {"dml": "DmlExecutionProvider", "cuda": "CUDAExecutionProvider", "cpu": "CPUExecutionProvider"}
PROVIDER_CHOICES = ("auto", *PROVIDERS)
PROVIDER_NAMES = {"dml": "DirectML", "cuda": "CUDA", "cpu": "CPU"}


def import_onnxruntime():
    """`import onnxruntime`, with what its native code prints while loading kept off the console.

    Without a display, onnxruntime's DirectML build prints "Failed to create
    DXGI factory." to stderr as it loads; the engine says why DirectML cannot
    run in its own one-line warning instead (`_pick_adapter`). What it printed
    goes to the debug log. Import it through here first (the engine does,
    before anything else may): later imports are free.
    """
    if "onnxruntime" in sys.modules:
        # An import statement, not the dict: while another thread is still importing it (two engines loading
        # at once), sys.modules holds it half-made, and only the import waits for it to be whole.
        import onnxruntime

        return onnxruntime
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, AttributeError, ValueError):  # no stderr at all (a windowed app): nothing to keep clean
        import onnxruntime

        return onnxruntime
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            import onnxruntime
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        said = sink.read().decode("utf-8", "replace").strip()
    if said:
        log.debug("onnxruntime, loading: %s", said)
    return onnxruntime


def available_providers() -> list[str]:
    ort = import_onnxruntime()
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
    slots_override: int | None = None,
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
        batch, frames, slots = (list(dim_names) + [None, None, None])[:3]
        if batch:
            opts.add_free_dimension_override_by_name(batch, 1)
        if frames:
            opts.add_free_dimension_override_by_name(frames, frames_override)
        if slots and slots_override is not None:
            opts.add_free_dimension_override_by_name(slots, slots_override)
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
    pin (and the slot dimension's, for a graph with `slots`).

    `slots` makes token slots a second padded axis: for a frame bucket, the
    slot lengths warmed under the fixed policy, shortest first; the last
    must hold every input of that many frames, and at the window length it
    is the fixed twin's.

    `scores`: the graph answers with an ArgMax (the punctuation model), so a
    NaN inside it would still give a valid index; the scores it picked from
    become extra outputs (after the graph's own, `ort_compat.argmax_scores`)
    and every run checks them like any float output.
    """

    role: str
    padded: bool = True
    fixed_role: str | None = None
    dim_names: tuple[str | None, ...] = ("batch", "frames")
    slots: Callable[[int], tuple[int, ...]] | None = None
    scores: bool = False  # its outputs come from an ArgMax: the scores are added as outputs, checked for NaN


Key = int | tuple[int, int] | None  # a session's frame bucket, (frames, slots) for a slotted graph, None: real length


@dataclass
class _Graph:
    spec: GraphSpec
    sessions: dict[Key, object] = field(default_factory=dict)


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
        self.wanted_device = options.device  # DirectML adapter: None/"auto", a rank, "#device_id" or part of a name
        self.adapter: adapters.Adapter | None = None
        self._short_bucket, self._buckets = short_bucket, options.buckets
        self._set_policy(options.policy)
        self._policy_given = options.policy is not None
        self.warnings: list[ErrorReport] = []
        # (role, padded shape) of every run: the first framed input's, (1, frames, slots) for a slotted graph
        self.shapes_seen: list[tuple[str, tuple[int, ...]]] = []
        self._warm = warm if options.warm else None
        self._graphs: dict[str, _Graph] = {}
        self._open()

    def _set_policy(self, policy: str | None) -> None:
        self.policy = policy or ("fixed" if self.provider == "dml" else "dynamic")
        if self.policy not in ("fixed", "dynamic"):
            raise TingjiError(messages.UNKNOWN_SHAPE_POLICY, policy=self.policy)
        if self.policy == "fixed":
            default = (self._short_bucket, self.window_frames) if self._short_bucket else (self.window_frames,)
            chosen = sorted(set(self._buckets or default))
            self.buckets = tuple(b for b in chosen if b <= self.window_frames)
            if not self.buckets or self.buckets[-1] != self.window_frames:
                self.buckets += (self.window_frames,)
        else:
            self.buckets = ()

    @property
    def device(self) -> str:
        """The adapter the graphs run on, as people know it ("" on the CPU)."""
        return self.adapter.label() if self.adapter is not None and self.provider == "dml" else ""

    # -- sessions -------------------------------------------------------------

    def has(self, role: str) -> bool:
        return role in self._graphs

    def _providers(self) -> list:
        """ONNX Runtime's provider list for this provider (the CPU added behind a GPU, for the nodes it lacks)."""
        if self.provider == "cpu":
            return [PROVIDERS["cpu"]]
        if self.provider == "dml":
            # device_id makes ONNX Runtime open the adapter through DXGI; without it, it asks dxcore.dll,
            # which Windows before 10 2004 (and Wine) lack, and quietly runs everything on the CPU.
            return [(PROVIDERS["dml"], {"device_id": str(self.adapter.device_id)}), PROVIDERS["cpu"]]
        return [PROVIDERS[self.provider], PROVIDERS["cpu"]]

    def session(self, role: str):
        """`role`'s one real-length session (a spec with `padded=False`), for a caller that runs it per
        32 ms frame with its own state (the VAD): it checks the outputs itself (`ort_compat.require_finite`)."""
        return self._graphs[role].sessions[None]

    def keys(self, role: str) -> list[Key]:
        """The sessions `role` has: one per bucket (and slot length) under the fixed policy, else [None]."""
        return list(self._graphs[role].sessions)

    def _keys(self, spec: GraphSpec) -> list[Key]:
        if self.policy != "fixed" or not spec.padded:
            return [None]  # a graph without a mask cannot be padded: one real-length session serves every bucket
        if spec.slots is None:
            return list(self.buckets)
        return [(b, s) for b in self.buckets for s in spec.slots(b)]

    def _make_session(self, spec: GraphSpec, key: Key):
        import onnxruntime as ort

        bucket, slots = key if isinstance(key, tuple) else (key, None)
        role, override = spec.role, bucket
        twin = bucket == self.window_frames and (spec.slots is None or slots == spec.slots(bucket)[-1])
        if twin and spec.fixed_role and self.manifest.file(spec.fixed_role) is not None:
            role, override = spec.fixed_role, None  # already static
        path = self.manifest.file(role)
        opts = session_options(
            self.provider, self.threads, override, exact=self.exact, dim_names=spec.dim_names, slots_override=slots
        )
        if PROVIDERS[self.provider] not in ort.get_available_providers():
            raise RuntimeError("not available in this ONNX Runtime installation")
        providers = self._providers()
        # Rewritten where this ONNX Runtime needs it, and where the check needs the scores behind a choice.
        source = ort_compat.model_source(path, self.provider, scores=spec.scores)
        if self.provider == "cpu" and self.graph_cache is not None:
            fields = ort_cache.entry_fields(
                self.manifest, role, opts.graph_optimization_level, override, source.rewrites
            )
            return ort_cache.session(source, opts, providers, self.graph_cache, fields)
        # enable_fallback=0: ONNX Runtime's Python layer would otherwise print its own banner to stdout and
        # retry on the CPU behind our back; the fallback here does that once, with one warning.
        session = source.session(opts, providers, enable_fallback=0)
        # ONNX Runtime quietly drops a provider it cannot initialise; make that a real failure
        # so the fallback below reports it instead of claiming a GPU that is not used.
        if session.get_providers()[0] != PROVIDERS[self.provider]:
            raise RuntimeError(f"{PROVIDERS[self.provider]} could not be initialised")
        return session

    def _open(self) -> None:
        role = "model"
        try:
            if self.provider == "dml" and self.adapter is None:
                self.adapter = self._pick_adapter()
            for role, spec in self.specs.items():
                graph = _Graph(spec)
                for key in self._keys(spec):
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

    def _pick_adapter(self) -> adapters.Adapter:
        """The DirectML adapter: the one asked for, else the first of DXGI's high-performance order that
        Direct3D 12 opens; raises why there is none (the caller falls back to the CPU)."""
        import onnxruntime as ort

        if PROVIDERS["dml"] not in ort.get_available_providers():
            raise RuntimeError("not available in this ONNX Runtime installation")
        try:
            found = adapters.list_adapters()
        except adapters.AdaptersUnavailable as exc:
            raise TingjiError(messages.NO_ADAPTERS, reason=str(exc)) from None
        wanted = (self.wanted_device or "").strip()
        chosen = adapters.find(found, wanted) if wanted and wanted.lower() != "auto" else None
        if wanted and wanted.lower() != "auto" and chosen is None:  # not here (any more): the default, and say so
            listed = "; ".join(f"{a.rank}: {a.label()}" for a in found) or "none"
            self._warn(warning(messages.UNKNOWN_DEVICE, device=wanted, adapters=listed))
        refused = []  # why Direct3D 12 would not open each one: the reason of the error, not warnings
        for adapter in [chosen] if chosen is not None else adapters.by_preference(found):
            why = adapters.d3d12_problem(adapter)
            if why is None:
                return adapter
            refused.append(f"{adapter.label()}: {why}")
        raise TingjiError(messages.NO_ADAPTERS, reason="; ".join(refused) or "DXGI lists none")

    def _warn(self, report: ErrorReport) -> None:
        # info, not warning: the caller shows `warnings` (CLI: one stderr line; GUI: the banner), and a
        # logging warning would be a second line (Python prints it to stderr when nothing configured logging).
        log.info(report.text)
        self.warnings.append(report)

    def _fall_back(self, exc: BaseException) -> None:
        reason = exc if isinstance(exc, TingjiError) else first_line(exc)[:200]  # ours: translated with it
        self._warn(warning(messages.PROVIDER_FELL_BACK, provider=self.provider.upper(), reason=reason))
        self.provider = "cpu"
        if not self._policy_given:  # the CPU runs the real length, exactly as when it was chosen
            self._set_policy(None)
        self._graphs.clear()
        self._open()

    def session_shapes(self) -> dict[str, list[tuple[int, ...]]]:
        """The input shapes each warmed session was built for (fixed policy): (1, frames[, slots]), for checks."""
        return {
            role: [(1, *k) if isinstance(k, tuple) else (1, k) for k in g.sessions if k is not None]
            for role, g in self._graphs.items()
        }

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
        slotted: dict[str, np.ndarray] | None = None,
        bucket: int | None | str = "policy",
        slot_bucket: int | None | str = "policy",
        record: bool = True,
        size: int | None = None,
    ) -> list[np.ndarray]:
        """Run `role` on `framed` inputs ([frames, ...] each, batch added here), `slotted` inputs
        ([slots, ...] each, for a graph with token slots) and `other` inputs (as given).

        `size` is the run's frames, batch and padding included, where the inputs come batched in `other`
        (the speaker model's windows): it decides, as a long window's length does, whether the arena's
        blocks are given back after the run (`run_options`). None: the run's length.

        A GPU provider failing mid-file (a driver reset) falls back to the CPU
        and the call is repeated there, so the file still finishes.
        """
        slotted = slotted or {}
        try:
            return self._run(role, framed, frames, other or {}, slotted, bucket, slot_bucket, record, size)
        except TingjiError:
            raise
        except Exception as exc:
            if self.provider == "cpu":
                raise
            self._fall_back(exc)
            return self._run(role, framed, frames, other or {}, slotted, "policy", "policy", record, size)

    def _run(
        self,
        role: str,
        framed: dict[str, np.ndarray],
        frames: int,
        other: dict[str, np.ndarray],
        slotted: dict[str, np.ndarray],
        bucket: int | None | str,
        slot_bucket: int | None | str,
        record: bool,
        size: int | None = None,
    ) -> list[np.ndarray]:
        graph = self._graphs[role]
        key = self.bucket_for(frames) if bucket == "policy" else bucket
        if not graph.spec.padded:
            key = None
        length = frames if key is None else key
        arrays: dict[str, np.ndarray] = dict(other)
        arrays.update(_padded(framed, frames, length))
        mask = np.zeros((1, length), np.float32)
        mask[0, :frames] = 1.0
        arrays.setdefault("mask", mask)
        session_key: Key = key
        if graph.spec.slots is not None:
            n = len(next(iter(slotted.values())))
            slots = self._slot_bucket(graph.spec, key, n) if slot_bucket == "policy" else slot_bucket
            slot_length = n if slots is None else slots
            arrays.update(_padded(slotted, n, slot_length))
            slot_mask = np.zeros((1, slot_length), np.float32)
            slot_mask[0, :n] = 1.0
            arrays.setdefault("slot_mask", slot_mask)
            session_key = None if key is None else (key, slot_length)
        session = graph.sessions[session_key]
        if record:
            if graph.spec.slots is not None:
                shape = (1, length, arrays["slot_mask"].shape[1])
            else:
                shape = next(iter(arrays[n] for n in framed)).shape if framed else (1, length)
            self.shapes_seen.append((role, tuple(shape)))
        shrink = (length if size is None else size) * KEEP_BLOCKS_SHARE > self.window_frames  # padding included
        outputs = session.run(None, _feed(session, arrays), run_options(self.provider, shrink))
        ort_compat.require_finite(outputs, self.manifest.folder, role, self.provider)
        if self.provider == "cpu" and shrink:
            # What the shrunk arena frees below glibc's mmap threshold (tensors of a few MB, per-head
            # attention scores, ORT's bookkeeping) would stay resident in glibc's heaps, under every
            # later peak (benchmarks/README.md#onnx-runtimes-arena-and-glibcs-heaps-after-long-runs).
            release_free_heap()
        return outputs

    def _slot_bucket(self, spec: GraphSpec, key: int | None, n: int) -> int | None:
        """The slot length for `n` valid slots in the frame bucket `key` (None: the real count)."""
        if key is None or spec.slots is None:
            return None
        lengths = spec.slots(key)
        if n > lengths[-1]:
            raise TingjiError(messages.SLOTS_TOO_MANY, slots=n, limit=lengths[-1], frames=key)
        return next(s for s in lengths if s >= n)


def _padded(inputs: dict[str, np.ndarray], valid: int, length: int) -> dict[str, np.ndarray]:
    """Each [valid, ...] input zero-padded to [1, length, ...]."""
    out = {}
    for name, x in inputs.items():
        padded = np.zeros((1, length) + x.shape[1:], np.float32)
        padded[0, :valid] = x
        out[name] = padded
    return out


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
