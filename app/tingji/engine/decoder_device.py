"""Where the LLM decoder runs: the CPU, or a GPU through llama.cpp's Vulkan backend.

llama.cpp's Vulkan build is a second set of its libraries, `llama_cpp/lib-vulkan` beside the CPU
set (`TINGJI_LLAMA_VULKAN` names another folder): a machine without a Vulkan loader - vulkan-1.dll
comes with the GPU driver - still loads the CPU set. Which set a process loads, and which Vulkan
device it sees (`GGML_VK_VISIBLE_DEVICES`), is fixed when llama.cpp is first loaded, so the choice
is the process's: `configure("auto" | "cpu" | "vulkan" | "vulkan:N")` before the first model loads
(the CLI's `--decoder-device`; `TINGJI_DECODER_DEVICE` otherwise). `auto` takes the first discrete,
then integrated, Vulkan GPU the driver lists, never a CPU-type device (lavapipe, SwiftShader) unless
it is named; `vulkan` takes what `auto` would, else the first device listed.

Before a GPU holds the weights (every layer and the KV cache), a self-check runs a short fixed prompt
of embedding rows - how audio reaches the decoder, and where some Intel iGPU drivers give NaN
(llama.cpp issue 18969) - on the GPU and on the CPU: the logits must be finite and their argmax equal.
A failure is retried with `GGML_VK_DISABLE_F16`, then the decoder stays on the CPU with one warning
naming the adapter and the reason. The check runs in a child process (a driver that crashes takes
only the child, and the retry needs a fresh Vulkan device) and its verdict is remembered per adapter,
driver version and llama.cpp build. At run time a window whose logits are not finite is decoded again
on the CPU, which keeps the decoder for the rest of the model's life (`Fallback`).

The first check on a driver is slow - the driver compiles llama.cpp's shaders, minutes on lavapipe,
then keeps them in its cache (Mesa's in `<data>/cache/gpu-shaders`) - so whoever loads can show it as
"preparing the GPU, first time only" with the seconds so far (`preparing_shown`): never a silent hang.

`TINGJI_DECODER_FAULT` injects faults for tests: `nan` makes every logits read of a device model NaN,
`nan-after:K` from its K-th read on.

(One module past 400 lines: listing, choice, self-check, verdicts, the first-load note and the fallback
are one decision - where the decoder runs - and each part reads the others' state.)
"""

from __future__ import annotations

import ctypes
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from ..errors import ErrorReport, Message, ModelError, TingjiError, warning
from . import messages

if TYPE_CHECKING:
    from .decoder import LlamaContext, LlamaModel

log = logging.getLogger(__name__)

ENV_CHOICE = "TINGJI_DECODER_DEVICE"
ENV_LIBRARY = "TINGJI_LLAMA_VULKAN"
ENV_FAULT = "TINGJI_DECODER_FAULT"
LIBRARY_FOLDER = "lib-vulkan"  # tools/windows/recipe.py's LLAMA_VULKAN_FOLDER
CPU_FOLDER = "lib-cpu"  # recipe.py's LLAMA_CPU_FOLDER: Linux's CPU set with Tingji's kernel patches
CPU_STAMP = "llama-cpp-python.version"  # tools/llama_cpu.py's STAMP
CHECK_SEED = 48  # the self-check's prompt: fixed rows, the same on every machine
CHECK_ROWS = 12
CHECK_TEXT = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
_KINDS = {0: "other", 1: "integrated", 2: "discrete", 3: "virtual", 4: "cpu"}  # VkPhysicalDeviceType

T = TypeVar("T")


# ---------------------------------------------------------------- the choice


@dataclass(frozen=True)
class Choice:
    """A parsed `--decoder-device`: `kind` is "auto", "cpu" or "vulkan"; `index` a named device."""

    kind: str
    index: int | None = None

    def __str__(self) -> str:
        return self.kind if self.index is None else f"{self.kind}:{self.index}"


def parse_choice(text: str) -> Choice:
    """`auto`, `cpu`, `vulkan` or `vulkan:N` (any case, spaces ignored).

    Raises:
        TingjiError: anything else (decoder.device_choice).
    """
    value = str(text).strip().lower()
    if value in ("auto", "cpu", "vulkan"):
        return Choice(value)
    kind, _, index = value.partition(":")
    if kind == "vulkan" and index.isdigit():
        return Choice("vulkan", int(index))
    raise TingjiError(messages.DECODER_DEVICE_CHOICE, value=text)


@dataclass(frozen=True)
class VulkanDevice:
    """One physical device as the Vulkan loader lists it; `index` is its place in that list."""

    index: int
    name: str
    kind: str  # "discrete", "integrated", "virtual", "cpu", "other"
    vendor_id: int
    device_id: int
    driver_version: int

    @property
    def label(self) -> str:
        """How the CLI, JSON and the GUI name it: `vulkan:0 (AMD Radeon 780M)`."""
        return f"vulkan:{self.index} ({self.name})"

    @property
    def key(self) -> str:
        """Adapter and driver version: what a remembered self-check verdict holds for."""
        return f"{self.vendor_id:04x}:{self.device_id:04x}:{self.driver_version:x}:{self.name}"


def pick(choice: Choice, devices: list[VulkanDevice]) -> VulkanDevice | None:
    """The device a choice names among those listed; None for the CPU.

    Raises:
        TingjiError: `vulkan:N` names no listed device (decoder.no_vulkan_device).
    """
    if choice.kind == "cpu":
        return None
    if choice.index is not None:
        if choice.index >= len(devices):
            raise TingjiError(messages.NO_VULKAN_DEVICE, index=choice.index, count=len(devices))
        return devices[choice.index]
    for kind in ("discrete", "integrated"):
        gpu = next((d for d in devices if d.kind == kind), None)
        if gpu is not None:
            return gpu
    # `vulkan` without a number still wants Vulkan: the first device listed, whatever its type.
    return devices[0] if choice.kind == "vulkan" and devices else None


# ---------------------------------------------------------------- the Vulkan loader, by ctypes


class _AppInfo(ctypes.Structure):
    _fields_ = [
        ("sType", ctypes.c_int),
        ("pNext", ctypes.c_void_p),
        ("pApplicationName", ctypes.c_char_p),
        ("applicationVersion", ctypes.c_uint32),
        ("pEngineName", ctypes.c_char_p),
        ("engineVersion", ctypes.c_uint32),
        ("apiVersion", ctypes.c_uint32),
    ]


class _InstanceInfo(ctypes.Structure):
    _fields_ = [
        ("sType", ctypes.c_int),
        ("pNext", ctypes.c_void_p),
        ("flags", ctypes.c_uint32),
        ("pApplicationInfo", ctypes.POINTER(_AppInfo)),
        ("enabledLayerCount", ctypes.c_uint32),
        ("ppEnabledLayerNames", ctypes.c_void_p),
        ("enabledExtensionCount", ctypes.c_uint32),
        ("ppEnabledExtensionNames", ctypes.c_void_p),
    ]


def _vulkan_loader() -> ctypes.CDLL | None:
    name = "vulkan-1.dll" if sys.platform == "win32" else "libvulkan.so.1"
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


def list_vulkan_devices() -> list[VulkanDevice] | None:
    """The physical devices the Vulkan driver lists, in its order (ggml-vulkan's indices); None without a loader."""
    vk = _vulkan_loader()
    if vk is None:
        return None
    app = _AppInfo(0, None, b"Tingji", 1, b"Tingji", 1, (1 << 22) | (2 << 12))  # Vulkan 1.2
    info = _InstanceInfo(1, None, 0, ctypes.pointer(app), 0, None, 0, None)
    instance = ctypes.c_void_p()
    if vk.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(instance)) != 0:
        return []
    try:
        count = ctypes.c_uint32(0)
        vk.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), None)
        handles = (ctypes.c_void_p * count.value)()
        vk.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), handles)
        devices = []
        for index in range(count.value):
            # VkPhysicalDeviceProperties (824 bytes): five uint32 then deviceName[256].
            props = ctypes.create_string_buffer(1024)
            vk.vkGetPhysicalDeviceProperties(ctypes.c_void_p(handles[index]), props)
            _api, driver, vendor, device, kind = np.frombuffer(props.raw[:20], np.uint32).tolist()
            name = props.raw[20:276].split(b"\0", 1)[0].decode("utf-8", "replace")
            devices.append(VulkanDevice(index, name, _KINDS.get(kind, "other"), vendor, device, driver))
        return devices
    finally:
        vk.vkDestroyInstance(instance, None)


def vulkan_library() -> Path | None:
    """The folder of llama.cpp's Vulkan build this install has, or None."""
    named = os.environ.get(ENV_LIBRARY)
    if named:
        return Path(named) if Path(named).is_dir() else None
    import importlib.util

    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / LIBRARY_FOLDER
    return folder if folder.is_dir() else None


def cpu_library() -> Path | None:
    """Linux's patched CPU set (`tools/llama_cpu.py --install`) when it belongs to the installed llama_cpp.

    The patches make verifying a drafted block cheaper and change no result; a set left from another
    llama-cpp-python release (its stamp) is not loaded. The Windows build and the frozen Linux app
    carry the patched libraries in llama_cpp/lib itself.
    """
    import importlib.metadata
    import importlib.util

    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / CPU_FOLDER
    try:
        stamp = (folder / CPU_STAMP).read_text().strip()
        return folder if stamp == importlib.metadata.version("llama_cpp_python") else None
    except (OSError, importlib.metadata.PackageNotFoundError):
        return None


def use_cpu_library() -> None:
    """Load llama_cpp from `cpu_library()` if it is not loaded yet (a folder named already stays).

    The folder reaches llama_cpp through LLAMA_CPP_LIB_PATH only while it loads: left in the
    environment, it would reach every child process too (a Windows Python under Wine, a GPU check).
    """
    with _LOCK:  # the encoder's and the decoder's loads run on two threads
        if _loaded_library() is not None or "LLAMA_CPP_LIB_PATH" in os.environ:
            return
        folder = cpu_library()
        if folder is None:
            return
        os.environ["LLAMA_CPP_LIB_PATH"] = str(folder)
        try:
            import llama_cpp  # noqa: F401 - loads the libraries, from the folder
        finally:
            os.environ.pop("LLAMA_CPP_LIB_PATH", None)


# ---------------------------------------------------------------- the process's placement


@dataclass
class Placement:
    """Where this process's decoders go: `device` (None: the CPU) and why not a GPU (`warnings`)."""

    choice: Choice
    device: VulkanDevice | None = None
    library: Path | None = None
    warnings: list[ErrorReport] = field(default_factory=list)


_LOCK = threading.RLock()
_PLACEMENT: list[Placement] = []  # resolved once; configure() before the first load may redo it


def configure(choice: str | Choice) -> Placement:
    """Set this process's decoder device (`auto`, `cpu`, `vulkan`, `vulkan:N`) and resolve it now.

    Raises:
        TingjiError: an unknown choice, or `vulkan:N` the driver does not list.
    """
    parsed = choice if isinstance(choice, Choice) else parse_choice(choice)
    with _LOCK:
        _PLACEMENT.clear()
        _PLACEMENT.append(_resolve(parsed))
        return _PLACEMENT[0]


def placement() -> Placement:
    """The process's placement: as configured, else from `TINGJI_DECODER_DEVICE` (default `auto`)."""
    with _LOCK:
        if not _PLACEMENT:
            _PLACEMENT.append(_resolve(parse_choice(os.environ.get(ENV_CHOICE) or "auto")))
        return _PLACEMENT[0]


def _loaded_library() -> Path | None:
    """The folder llama_cpp loaded its libraries from, when it is imported already."""
    module = sys.modules.get("llama_cpp.llama_cpp")
    return None if module is None else Path(module._base_path)


def _resolve(choice: Choice) -> Placement:
    here = Placement(choice)
    if choice.kind == "cpu":
        return here
    named = choice.kind == "vulkan"  # a choice that asked for Vulkan hears why it is not had; auto does not
    library = vulkan_library()
    if library is None:
        return _on_cpu(here, "Vulkan", messages.GPU_NO_BUILD) if named else here
    devices = list_vulkan_devices()
    if devices is None:
        return _on_cpu(here, "Vulkan", messages.GPU_NO_LOADER) if named else here
    device = pick(choice, devices)
    if device is None:
        return here
    loaded = _loaded_library()
    if loaded is not None and loaded.resolve() != library.resolve():
        return _on_cpu(here, device.label, messages.GPU_LOADED_BEFORE)
    here.device, here.library = device, library
    return here


def _on_cpu(here: Placement, adapter: str, reason: Message) -> Placement:
    here.warnings.append(warning(messages.DECODER_ON_CPU, adapter=adapter, reason=ModelError(reason)))
    return here


def activate(device: VulkanDevice, library: Path, *, disable_f16: bool = False) -> None:
    """Point the llama_cpp package at the Vulkan build and `device` (before it is first imported)."""
    wanted = {"LLAMA_CPP_LIB_PATH": str(library), "GGML_VK_VISIBLE_DEVICES": str(device.index)}
    if disable_f16:
        wanted["GGML_VK_DISABLE_F16"] = "1"
    os.environ.update(wanted)
    if sys.platform == "win32":
        # llama.cpp's mingw DLLs read the environment through msvcrt.dll, whose copy was taken when it
        # loaded: Python's (the UCRT's) change does not reach it. Put the variables there as well.
        for name, value in wanted.items():
            ctypes.cdll.msvcrt._putenv(f"{name}={value}".encode())
    if sys.platform.startswith("linux"):
        from .. import paths

        # Mesa's drivers (lavapipe, RADV, ANV) keep compiled shaders here: the first load compiles them.
        os.environ.setdefault("MESA_SHADER_CACHE_DIR", str(paths.data_dir() / "cache" / "gpu-shaders"))
    if sys.platform == "win32" and hasattr(os, "add_dll_directory"):
        os.add_dll_directory(str(library))


def llama_vulkan_devices() -> list[str]:
    """The Vulkan devices the llama.cpp this process loaded lists (their descriptions); [] for none.

    What tells a Vulkan build that found its device from one that did not (an environment variable
    that never reached it) and would run "on the GPU" on the CPU.
    """
    import llama_cpp.llama_cpp as ll

    names = ("ggml.dll", "ggml-base.dll") if sys.platform == "win32" else ("libggml.so", "libggml-base.so")
    try:
        # The registry is in ggml, a device's own functions in ggml-base (Linux finds both through either).
        ggml, base = (ctypes.CDLL(str(Path(ll._base_path) / name)) for name in names)
    except OSError:
        return []
    ggml.ggml_backend_dev_count.restype = ctypes.c_size_t
    ggml.ggml_backend_dev_get.restype = ctypes.c_void_p
    ggml.ggml_backend_dev_get.argtypes = [ctypes.c_size_t]
    for what in ("name", "description"):
        getattr(base, f"ggml_backend_dev_{what}").restype = ctypes.c_char_p
        getattr(base, f"ggml_backend_dev_{what}").argtypes = [ctypes.c_void_p]
    found = []
    for i in range(ggml.ggml_backend_dev_count()):
        dev = ggml.ggml_backend_dev_get(i)
        if (base.ggml_backend_dev_name(dev) or b"").startswith(b"Vulkan"):
            found.append((base.ggml_backend_dev_description(dev) or b"").decode("utf-8", "replace"))
    return found


# ---------------------------------------------------------------- loading, with the self-check


def load(path: str | os.PathLike[str]) -> LlamaModel:
    """A family's decoder weights on the process's device, checked first; on the CPU otherwise.

    The model's `warnings` say why a GPU that was asked for is not used.
    """
    from .decoder import LlamaModel

    here = placement()
    if here.device is None or here.library is None:
        model = LlamaModel(path)
        model.warnings.extend(here.warnings)
        return model
    loaded = _loaded_library()
    if loaded is not None and loaded.resolve() != here.library.resolve():  # imported since the choice was made
        model = LlamaModel(path)
        model.warnings.extend(_on_cpu(Placement(here.choice), here.device.label, messages.GPU_LOADED_BEFORE).warnings)
        return model
    verdict = remembered_check(Path(path), here.device, here.library)
    if verdict.get("ok"):
        activate(here.device, here.library, disable_f16=bool(verdict.get("disable_f16")))
        model = LlamaModel(path, gpu_layers=999, device_name=here.device.label, fault=os.environ.get(ENV_FAULT))
        if llama_vulkan_devices():
            return model
        model.close()  # the check's child saw the device, this process does not: say so, stay on the CPU
        reason = ModelError(messages.GPU_CHECK_FAILED, detail="llama.cpp lists no Vulkan device")
        report = warning(messages.DECODER_ON_CPU, adapter=here.device.label, reason=reason)
    else:
        report = ErrorReport.from_data(str(verdict.get("text", "")), verdict.get("report"))
    model = LlamaModel(path)
    model.warnings.append(report)
    return model


def _verdicts_path() -> Path:
    from .. import paths

    return paths.data_dir() / "cache" / "gpu-checks.json"


def remembered_check(path: Path, device: VulkanDevice, library: Path) -> dict:
    """The self-check's verdict for this adapter, driver and llama.cpp build: remembered, else run now."""
    key = f"{device.key}|{library.resolve()}"
    store = _verdicts_path()
    try:
        known = json.loads(store.read_text())
    except (OSError, ValueError):
        known = {}
    known = known if isinstance(known, dict) else {}  # a damaged file is checked again, then rewritten
    if isinstance(known.get(key), dict) and not os.environ.get(ENV_FAULT):
        return known[key]
    verdict = check_device(path, device, library)
    if not os.environ.get(ENV_FAULT):  # an injected fault says nothing about the adapter
        from ..atomic import write_text

        known[key] = verdict
        store.parent.mkdir(parents=True, exist_ok=True)
        write_text(store, json.dumps(known, indent=1, ensure_ascii=False))
    return verdict


def check_device(path: Path, device: VulkanDevice, library: Path) -> dict:
    """Run the self-check in a child process, then once more with f16 disabled; the verdict as data."""
    first = None
    log.info("checking the decoder on %s (the first time on a driver compiles its shaders: minutes)", device.label)
    with _ticking(device.label, getattr(_THREAD, "preparing", None)):
        for disable_f16 in (False, True):
            problem = _check_in_child(path, device, library, disable_f16)
            if problem is None:
                return {"ok": True, "disable_f16": disable_f16}
            first = first or problem
    report = warning(messages.DECODER_ON_CPU, adapter=device.label, reason=first)
    log.warning("%s", report.line)
    return {"ok": False, "text": report.text, "report": report.to_data()}


def _check_in_child(path: Path, device: VulkanDevice, library: Path, disable_f16: bool) -> ModelError | None:
    if getattr(sys, "frozen", False):  # a frozen app cannot run `-m`: check here, without the retry
        if disable_f16:
            return ModelError(messages.GPU_CHECK_FAILED, detail="no retry in this build")
        activate(device, library)
        return compare(path, device.label)
    cmd = [sys.executable, "-m", __name__, str(path), str(device.index), str(library), "1" if disable_f16 else "0"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return ModelError(messages.GPU_CHECK_FAILED, detail=tail[-200:])
    answer = json.loads(lines[-1])
    if answer["code"] is None:
        return None
    return ModelError(_MESSAGES[answer["code"]], **answer["fields"])


def check_prompt(model: LlamaModel) -> np.ndarray:
    """The self-check's rows: a ChatML prefix's token rows (as Tingji feeds prompts), then audio-like rows."""
    rng = np.random.default_rng(CHECK_SEED)
    audio = (rng.standard_normal((CHECK_ROWS, model.n_embd)) * 0.02).astype(np.float32)
    rows = model.token_rows
    if rows is None:
        return audio
    return np.concatenate([rows.rows(model.tokenize(CHECK_TEXT)), audio])


def first_logits(model: LlamaModel, prompt: np.ndarray) -> np.ndarray:
    """The last row's logits after `prompt` (checked for finiteness by the context)."""
    from .decoder import LlamaContext

    ctx = LlamaContext(model, eos_ids=[], n_ctx=256, n_threads=None)
    try:
        ctx.prefill([], prompt, [])
        return ctx.last_logits().copy()
    finally:
        ctx.close()
        model._contexts.remove(ctx)


def compare(path: str | os.PathLike[str], label: str, *, fault: str | None = None) -> ModelError | None:
    """The self-check: the device's logits finite and their argmax the CPU's; None when it passes."""
    from .decoder import LlamaModel

    fault = fault if fault is not None else os.environ.get(ENV_FAULT)
    try:
        gpu = LlamaModel(path, gpu_layers=999, device_name=label, fault=fault)
    except TingjiError as e:
        return ModelError(messages.GPU_CHECK_FAILED, detail=e.report().line)
    if fault is None and not llama_vulkan_devices():
        gpu.close()
        return ModelError(messages.GPU_CHECK_FAILED, detail="llama.cpp lists no Vulkan device")
    cpu = LlamaModel(path)
    try:
        prompt = check_prompt(cpu)
        try:
            on_gpu = first_logits(gpu, prompt)
        except ModelError as e:
            if e.message is messages.DECODER_NOT_FINITE:
                return ModelError(messages.GPU_NOT_FINITE)
            raise
        on_cpu = first_logits(cpu, prompt)
        if int(np.argmax(on_gpu)) != int(np.argmax(on_cpu)):
            return ModelError(messages.GPU_ARGMAX_DIFFERS, gpu=int(np.argmax(on_gpu)), cpu=int(np.argmax(on_cpu)))
        return None
    finally:
        gpu.close()
        cpu.close()


_MESSAGES = {m.code: m for m in (messages.GPU_NOT_FINITE, messages.GPU_ARGMAX_DIFFERS, messages.GPU_CHECK_FAILED)}


# ---------------------------------------------------------------- the first load, shown

Preparing = Callable[[str, float | None], None]
"""Told `(adapter label, seconds so far)` about once a second while a self-check runs, from 0 s on;
`(adapter label, None)` when it is over."""

_THREAD = threading.local()  # the GUI's engine threads may load at once: each shows its own
TICK_S = 1.0


def show_preparing(callback: Preparing | None) -> None:
    """From now on, a self-check that this thread's loads run tells `callback` how it goes (None: nobody).

    Only a self-check is told: a remembered verdict loads in seconds. The callback is called from
    another thread (a Qt slot must be reached by a queued signal).

    Args:
        callback: `(adapter, seconds)` about once a second while the check runs, then `(adapter, None)`.
    """
    _THREAD.preparing = callback


@contextmanager
def preparing_shown(callback: Preparing) -> Iterator[None]:
    """`show_preparing(callback)` for the loads in the block.

    Args:
        callback: as for `show_preparing`.
    """
    before = getattr(_THREAD, "preparing", None)
    show_preparing(callback)
    try:
        yield
    finally:
        show_preparing(before)


@contextmanager
def _ticking(label: str, callback: Preparing | None) -> Iterator[None]:
    if callback is None:
        yield
        return
    import time

    done = threading.Event()
    start = time.monotonic()

    def tick() -> None:
        while True:
            callback(label, time.monotonic() - start)
            if done.wait(TICK_S):
                return

    ticker = threading.Thread(target=tick, name="tingji-gpu-preparing", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
        callback(label, None)


# ---------------------------------------------------------------- run-time fallback


class Fallback:
    """A family's decoder on its device and, after a window whose logits were not finite, on the CPU.

    `run(lane, work)` does a window's work on the lane's context; a `decoder.not_finite` error
    loads the CPU copy of the weights (once), gives the lane a CPU context and does the window again
    there, so finished windows are kept and the rest of the file - and every later one - runs on the
    CPU. `warnings` (the engine's list) gets one warning naming the adapter.
    """

    def __init__(
        self, model: LlamaModel, open_lane: Callable[[LlamaModel], LlamaContext], warnings: list[ErrorReport]
    ) -> None:
        self.model = model
        self._open_lane = open_lane
        self._warnings = warnings
        self._cpu: LlamaModel | None = None
        self._lanes: dict[int, LlamaContext] = {}
        self._lock = threading.Lock()

    @property
    def device_name(self) -> str:
        return "cpu" if self._cpu is not None else self.model.device_name

    def run(self, lane: LlamaContext, work: Callable[[LlamaContext], T]) -> T:
        """`work(context)` on the lane's device, or again on the CPU after a non-finite result."""
        if not self.model.on_gpu and self.model.fault is None:
            return work(lane)
        if self._cpu is None:
            try:
                return work(lane)
            except ModelError as e:
                if e.message is not messages.DECODER_NOT_FINITE:
                    raise
        return work(self._cpu_lane(lane))

    def _cpu_lane(self, lane: LlamaContext) -> LlamaContext:
        """The CPU context standing in for `lane` (every lane moves once one window failed)."""
        from .decoder import LlamaModel

        with self._lock:
            if self._cpu is None:
                self._cpu = LlamaModel(self.model.path)
                self._warnings.append(warning(messages.DECODER_GPU_NAN, adapter=self.model.device_name))
                log.warning("%s", self._warnings[-1].line)
            if id(lane) not in self._lanes:
                self._lanes[id(lane)] = self._open_lane(self._cpu)
            return self._lanes[id(lane)]

    def close(self) -> None:
        if self._cpu is not None:
            self._cpu.close()
        self._lanes.clear()


# ---------------------------------------------------------------- the child's side of the check


def _child(argv: list[str]) -> int:
    path, index, library, disable_f16 = argv
    device = VulkanDevice(int(index), f"device {index}", "other", 0, 0, 0)
    activate(device, Path(library), disable_f16=disable_f16 == "1")
    problem = compare(path, f"vulkan:{index}")
    answer = {"code": None, "fields": {}} if problem is None else {"code": problem.code, "fields": problem.fields}
    print(json.dumps(answer, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
