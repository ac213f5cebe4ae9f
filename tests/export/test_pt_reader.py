"""Issue 44: model.pt and .safetensors read without torch, as NumPy views of the mapped file, never running code.

Every tensor `torch.save` writes reads back equal to what `torch.load` gives; each array is a
view of the file's mapping; a hostile or broken file is one coded ModelError naming it, runs
nothing, and no file torch's `weights_only=True` refuses is read (the allow-lists are subsets
of torch's); and the readers work in a process where `import torch` fails.
"""

from __future__ import annotations

import collections
import inspect
import io
import json
import mmap
import os
import pickle
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file as st_load_file
from safetensors.torch import save_file as st_save_file

from tests.support.paths import ROOT
from tingji.errors import ModelError
from tingji.export import pt_reader
from tingji.export.pt_reader import read_pickle_tree, read_state_dict
from tingji.export.safetensors_file import (
    INDEX_NAME,
    load_checkpoint_arrays,
    load_checkpoint_tensors,
    load_file,
    load_file_numpy,
)


def mapped(array: np.ndarray) -> bool:
    """Whether the array's memory is, through its bases, an mmap of the file (no copy in between)."""
    obj: object = array
    while obj is not None:
        if isinstance(obj, mmap.mmap):
            return True
        obj = obj.obj if isinstance(obj, memoryview) else getattr(obj, "base", None)
    return False


def as_numpy(tensor: torch.Tensor) -> np.ndarray:
    return tensor.float().numpy() if tensor.dtype == torch.bfloat16 else tensor.numpy()


def assert_same(ours: np.ndarray, theirs: torch.Tensor, name: str) -> None:
    expected = as_numpy(theirs.detach())
    got = ours.astype(np.float32) if theirs.dtype == torch.bfloat16 else ours
    assert got.dtype == expected.dtype, f"{name}: {got.dtype} vs {expected.dtype}"
    assert got.shape == expected.shape and np.array_equal(got, expected), name


# -- real torch.save files -----------------------------------------------------------------------


def sample_state() -> collections.OrderedDict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    big = torch.randn(6, 8, generator=g)
    state = collections.OrderedDict()
    state["fp32"] = torch.randn(4, 5, generator=g)
    state["fp64"] = torch.randn(3, generator=g, dtype=torch.float64)
    state["fp16"] = torch.randn(2, 3, generator=g).half()
    state["bf16"] = torch.randn(5, 2, generator=g).bfloat16()
    state["int64"] = torch.arange(-5, 7).reshape(3, 4)
    state["int32"] = torch.arange(9, dtype=torch.int32)
    state["int16"] = torch.arange(-4, 4, dtype=torch.int16)
    state["int8"] = torch.arange(-3, 3, dtype=torch.int8)
    state["uint8"] = torch.arange(250, 256, dtype=torch.uint8)
    state["bool"] = torch.tensor([[True, False], [False, True]])
    state["scalar"] = torch.tensor(2.5)
    state["empty"] = torch.zeros(0, 3)
    state["transposed"] = big.t()  # shares big's storage, non-contiguous
    state["rows"] = big[2:5]  # storage_offset 16
    state["columns"] = big[:, 1::3]  # offset and strides
    state["expanded"] = torch.arange(3.0).expand(4, 3)  # stride 0
    state["param"] = torch.nn.Parameter(torch.randn(2, 2, generator=g))
    return state


def test_every_tensor_type_reads_back_as_torch_loads_it_and_as_views_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    torch.save(sample_state(), path)
    theirs = torch.load(path, weights_only=True)
    ours = read_state_dict(path)
    print({k: (str(v.dtype), v.shape, v.strides) for k, v in ours.items()})
    assert list(ours) == list(theirs)
    for name, tensor in theirs.items():
        assert_same(ours[name], tensor, name)
    bf16_kept = pt_reader.BFLOAT16 is not None
    assert all(mapped(a) for k, a in ours.items() if k != "bf16" or bf16_kept), "an array was copied"
    # The strided ones are views with torch's strides, not copies; tensors of one storage share memory.
    assert ours["transposed"].strides == (4, 32) and ours["columns"].strides == (32, 12)
    assert ours["expanded"].strides == (0, 4)
    assert np.shares_memory(ours["transposed"], ours["rows"]) and np.shares_memory(ours["rows"], ours["columns"])
    assert not np.shares_memory(ours["fp32"], ours["param"])


def test_bfloat16_stays_a_view_with_ml_dtypes() -> None:
    """onnx brings ml_dtypes, so where the exporter runs, bfloat16 weights are not widened."""
    import ml_dtypes

    assert pt_reader.BFLOAT16 == np.dtype(ml_dtypes.bfloat16)
    bits = np.array([0x3F80, 0xC000], dtype=np.uint16)  # 1.0, -2.0
    values = pt_reader.bfloat16(bits)
    assert np.shares_memory(values, bits) and values.astype(np.float32).tolist() == [1.0, -2.0]


def test_arrays_are_copy_on_write_the_file_never_changes(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    torch.save({"w": torch.ones(1000)}, path)
    before = path.read_bytes()
    state = read_state_dict(path)
    state["w"][:] = 7.0
    assert state["w"].sum() == 7000.0 and path.read_bytes() == before
    assert read_state_dict(path)["w"].sum() == 1000.0


@pytest.mark.parametrize(
    "wrap",
    [
        lambda sd: {"model": sd, "epoch": 3, "optimizer": {"param_groups": [{"lr": 0.1, "betas": (0.9, 0.98)}]}},
        lambda sd: {"state_dict": {f"module.{k}": v for k, v in sd.items()}},
        lambda sd: {"model_state_dict": sd, "note": "text", "steps": [1, 2, None, True]},
        lambda sd: {"model": {"model": {f"module.{k}": v for k, v in sd.items()}}},
    ],
    ids=["model", "state_dict-module", "model_state_dict", "nested-module"],
)
def test_containers_and_module_prefixes_unwrap_as_funasr_does(tmp_path: Path, wrap) -> None:
    module = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.LayerNorm(2))
    module.register_buffer("counts", torch.arange(4))
    sd = module.state_dict()  # an OrderedDict with `_metadata`: the pickle BUILDs it
    path = tmp_path / "model.pt"
    torch.save(wrap(sd), path)
    state = read_state_dict(path)
    print(sorted(state))
    assert sorted(state) == sorted(sd)
    for name, tensor in sd.items():
        assert_same(state[name], tensor, name)


def test_a_training_checkpoints_extras_read_as_plain_values(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    extras = {"seen": {3, 4}, "tag": b"\x00\xff", "size": torch.Size([2, 3]), "rate": 1e-3}
    torch.save({"model": {"w": torch.ones(2)}, "extras": extras, "best": (0.5, None, True)}, path)
    tree = read_pickle_tree(path)
    print(tree)
    assert tree["extras"] == {"seen": {3, 4}, "tag": b"\x00\xff", "size": (2, 3), "rate": 1e-3}
    assert tree["best"] == (0.5, None, True) and list(read_state_dict(path)) == ["w"]


def test_the_tiny_checkpoint_reads_as_torch_loads_it(tiny_checkpoint: Path) -> None:
    path = tiny_checkpoint / "model.pt"
    theirs = torch.load(path, map_location="cpu", weights_only=True, mmap=True)  # a flat state dict
    ours = read_state_dict(path)
    print(f"{len(ours)} tensors, {sum(a.nbytes for a in ours.values()) >> 10} KiB")
    assert len(ours) > 50 and sorted(ours) == sorted(theirs)
    for name, tensor in theirs.items():
        assert_same(ours[name], tensor, name)
    assert all(mapped(a) for a in ours.values())


# -- hostile and broken files ----------------------------------------------------------------------


class Storage:
    def __init__(self, key: str, numel: int, kind: object = torch.FloatStorage) -> None:
        self.key, self.numel, self.kind = key, numel, kind


class Tensor:
    """Pickles as torch.save pickles a tensor: `_rebuild_tensor_v2` over a persistent storage id."""

    def __init__(self, storage: Storage, offset: int, size: tuple, stride: tuple, hooks=None, grad=False) -> None:
        self.args = (storage, offset, size, stride, grad, collections.OrderedDict(hooks or {}))

    def __reduce__(self):
        return torch._utils._rebuild_tensor_v2, self.args


class Call:
    """Pickles as a call of `func(*args)`: what a hostile file does."""

    def __init__(self, func: object, *args: object) -> None:
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


class Pickler(pickle.Pickler):
    def __init__(self, file, protocol: int, pid: object = None) -> None:
        super().__init__(file, protocol=protocol)
        self.pid = pid

    def persistent_id(self, obj: object) -> object:
        if isinstance(obj, Storage):
            return self.pid or ("storage", obj.kind, obj.key, "cpu", obj.numel)
        return None


def dumps(obj: object, protocol: int = 2, pid: object = None) -> bytes:
    buffer = io.BytesIO()
    Pickler(buffer, protocol, pid).dump(obj)
    return buffer.getvalue()


def write_zip(path: Path, members: dict[str, bytes], compressed: tuple[str, ...] = ()) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(
                f"archive/{name}", data, zipfile.ZIP_DEFLATED if name in compressed else zipfile.ZIP_STORED
            )
    return path


SIX = np.arange(6, dtype=np.float32).tobytes()


def crafted(path: Path, obj: object, storages: dict[str, bytes] | None = None, **options) -> Path:
    """A torch-style zip checkpoint of `obj` with the given storage members."""
    raw = obj if isinstance(obj, bytes) else dumps(obj, options.pop("protocol", 2), options.pop("pid", None))
    members = {"data.pkl": raw}
    members["byteorder"] = options.pop("byteorder", b"little")
    members |= {f"data/{k}": v for k, v in ({"0": SIX} if storages is None else storages).items()}
    members |= options.pop("records", {"version": b"3\n"})
    return write_zip(path, members, **options)


def tensor(size: tuple = (2, 3), stride: tuple = (3, 1), offset: int = 0, numel: int = 6, **kw) -> Tensor:
    return Tensor(Storage("0", numel, kw.pop("kind", torch.FloatStorage)), offset, size, stride, **kw)


def cut_in_half(path: Path) -> Path:
    torch.save({"w": torch.randn(64, 64)}, path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return path


def legacy(path: Path) -> Path:
    torch.save({"w": torch.ones(3)}, path, _use_new_zipfile_serialization=False)
    return path


MARKER = "tingji-pwned"
ODICT = b"\x80\x02ccollections\nOrderedDict\n"  # protocol 2, then the global torch allows

# name -> (how to make the file in a folder, our code, whether torch.load(weights_only=True) refuses it)
CASES = {
    "os.system": (lambda p: crafted(p, Call(os.system, f"touch {p.parent / MARKER}")), "export.pt_global", True),
    "builtins.eval": (lambda p: crafted(p, Call(eval, "print('pwned')")), "export.pt_global", True),
    "subprocess.Popen": (lambda p: crafted(p, Call(subprocess.Popen, ["true"])), "export.pt_global", True),
    "protocol-4": (lambda p: crafted(p, {"w": tensor()}, protocol=4), "export.pt_instruction", True),
    "protocol-0": (lambda p: crafted(p, {"w": [1, 2]}, protocol=0), "export.pt_instruction", True),
    "call-a-storage-class": (lambda p: crafted(p, Call(torch.FloatStorage, 3)), "export.pt_malformed", True),
    "not-a-storage-id": (lambda p: crafted(p, {"w": tensor()}, pid=("module", "os")), "export.pt_malformed", True),
    "truncated-zip": (cut_in_half, "export.pt_damaged", True),
    "tensor-beyond-storage": (lambda p: crafted(p, {"w": tensor(size=(3, 3))}), "export.pt_storage_short", True),
    "offset-beyond-storage": (
        lambda p: crafted(p, {"w": tensor((2,), (1,), 5)}),
        "export.pt_storage_short",
        True,
    ),
    "storage-member-short": (lambda p: crafted(p, {"w": tensor()}, {"0": SIX[:12]}), "export.pt_storage_size", True),
    "storage-missing": (lambda p: crafted(p, {"w": tensor()}, {}), "export.pt_storage_missing", True),
    "no-data.pkl": (lambda p: write_zip(p, {"version": b"3\n", "data/0": SIX}), "export.pt_no_record", True),
    "no-version": (lambda p: crafted(p, {"w": tensor()}, records={}), "export.pt_no_record", True),
    "version-11": (lambda p: crafted(p, {"w": tensor()}, records={"version": b"11\n"}), "export.pt_version", True),
    "bad-alignment": (
        lambda p: crafted(p, {"w": tensor()}, records={"version": b"3", ".storage_alignment": b"x"}),
        "export.pt_damaged",
        True,
    ),
    "storage-member-long": (lambda p: crafted(p, {"w": tensor()}, {"0": SIX + SIX}), "export.pt_storage_size", True),
    "dtype-as-storage-type": (
        lambda p: crafted(p, {"w": tensor(kind=torch.float32)}),
        "export.pt_malformed",
        True,
    ),
    "int-requires-grad": (
        lambda p: crafted(p, {"w": tensor(kind=torch.LongStorage, grad=True)}, {"0": SIX * 2}),
        "export.pt_malformed",
        True,
    ),
    "not-a-zip": (lambda p: (p.write_bytes(b"#!/bin/sh\necho pwned\n"), p)[1], "export.pt_not_zip", True),
    "legacy-format": (legacy, "export.pt_legacy", True),  # read whole, torch takes it; mapped, it refuses
    "big-endian": (lambda p: crafted(p, {"w": tensor()}, byteorder=b"big"), "export.pt_byteorder", False),
    "compressed-storage": (lambda p: crafted(p, {"w": tensor()}, compressed=("data/0",)), "export.pt_compressed", None),
    "complex-storage": (
        lambda p: crafted(p, {"w": tensor(size=(3,), stride=(1,), numel=3, kind=torch.ComplexFloatStorage)}),
        "export.pt_dtype",
        False,
    ),
    "backward-hooks": (lambda p: crafted(p, {"w": tensor(hooks={0: 1})}), "export.pt_tensor_state", False),
    "not-a-state-dict": (lambda p: crafted(p, [tensor()]), "export.no_state_dict", False),
    # Hand-written pickles: instructions torch.save never writes, on the objects it allows.
    "newobj": (lambda p: crafted(p, ODICT + b")\x81."), "export.pt_instruction", False),
    "build-a-list": (lambda p: crafted(p, b"\x80\x02]}b."), "export.pt_malformed", True),
    "build-with-slots": (
        lambda p: crafted(p, b"\x80\x02ccollections\nOrderedDict\n)R}}\x86b."),
        "export.pt_malformed",
        True,
    ),
    "setitems-on-a-list": (lambda p: crafted(p, b"\x80\x02](K\x01K\x02u."), "export.pt_malformed", True),
    "append-to-a-dict": (lambda p: crafted(p, b"\x80\x02}K\x01a."), "export.pt_malformed", True),
    "stack-underflow": (lambda p: crafted(p, b"\x80\x02R."), "export.pt_malformed", True),
    "ext1-registry": (lambda p: crafted(p, b"\x80\x02\x82\x01."), "export.pt_instruction", True),
}


def torch_refuses(path: Path) -> bool:
    """Whether torch.load(weights_only=True) refuses the file, read whole or memory-mapped (either counts)."""
    refused = False
    for mapped_file in (False, True):
        try:
            torch.load(path, map_location="cpu", weights_only=True, mmap=mapped_file)
        except Exception as exc:  # noqa: BLE001 - any refusal counts
            print(f"  torch (mmap={mapped_file}): {type(exc).__name__}: {str(exc).strip().splitlines()[0][:100]}")
            refused = True
    return refused


@pytest.mark.filterwarnings("ignore:Detected pickle protocol 4")  # torch's, about the protocol-4 case
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_or_broken_file_is_one_coded_error_and_runs_nothing(tmp_path: Path, case: str) -> None:
    make, code, torch_verdict = CASES[case]
    path = make(tmp_path / f"{case}.pt")
    with pytest.raises(ModelError) as caught:
        read_state_dict(path)
    print(f"{case}: {caught.value.code}: {caught.value}")
    assert caught.value.code == code and path.name in str(caught.value) and "\n" not in str(caught.value)
    refused = torch_refuses(path)
    # Never less strict than torch: what it refuses we refuse (above); where torch reads it, we are stricter.
    assert torch_verdict is None or refused == torch_verdict, f"torch.load refuses: {refused}"
    assert not (tmp_path / MARKER).exists(), "the pickle ran a command"


def test_bad_sizes_or_strides_are_refused_in_the_pickle(tmp_path: Path) -> None:
    cases = {
        "negative-size": tensor(size=(-1, 6)),
        "size-stride-mismatch": tensor(size=(2, 3), stride=(1,)),
        "float-size": tensor(size=(2.0, 3)),
        "negative-offset": tensor(offset=-1),
    }
    for name, obj in cases.items():
        with pytest.raises(ModelError) as caught:
            read_state_dict(crafted(tmp_path / f"{name}.pt", {"w": obj}))
        print(f"{name}: {caught.value}")
        assert caught.value.code == "export.pt_malformed", name


def test_our_globals_and_instructions_are_subsets_of_torchs_weights_only() -> None:
    from torch import _weights_only_unpickler as wo

    ours = set(pt_reader._allowed_globals())
    theirs = set(wo._get_allowed_globals())
    handled = set(re.findall(r"\b([A-Z][A-Z0-9_]*)\[0\]", inspect.getsource(wo.Unpickler.load)))
    print(f"{len(ours)} globals (torch {len(theirs)}), instructions {sorted(pt_reader._INSTRUCTIONS)}")
    assert ours <= theirs, ours - theirs
    assert set(pt_reader._INSTRUCTIONS) <= handled, set(pt_reader._INSTRUCTIONS) - handled
    assert "NEWOBJ" in handled and "NEWOBJ" not in pt_reader._INSTRUCTIONS


def test_a_crafted_file_torch_reads_reads_the_same_here(tmp_path: Path) -> None:
    """The crafted files above are real checkpoints but for their one flaw."""
    path = crafted(tmp_path / "good.pt", {"w": tensor(size=(3, 2), stride=(1, 3)), "b": tensor((2,), (1,), 4)})
    theirs = torch.load(path, weights_only=True)
    tree = read_pickle_tree(path)
    assert sorted(tree) == ["b", "w"]
    for name in tree:
        assert_same(tree[name], theirs[name], name)


# -- safetensors --------------------------------------------------------------------------------------


def safetensors_sample() -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(5)
    return {
        "fp32": torch.randn(3, 4, generator=g),
        "fp16": torch.randn(5, generator=g).half(),
        "bf16": torch.randn(2, 3, generator=g).bfloat16(),
        "int64": torch.arange(-3, 3),
        "uint8": torch.arange(7, dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "scalar": torch.tensor(1.5),
    }


def test_safetensors_read_as_numpy_views_and_as_torch_tensors(tmp_path: Path) -> None:
    sample = safetensors_sample()
    path = tmp_path / "model.safetensors"
    st_save_file(sample, str(path))
    reference = st_load_file(str(path))
    arrays, tensors = load_file_numpy(path), load_file(path)
    assert sorted(arrays) == sorted(tensors) == sorted(reference)
    for name, tensor in reference.items():
        assert_same(arrays[name], tensor, name)
        assert tensors[name].dtype == tensor.dtype and torch.equal(tensors[name], tensor), name
        assert mapped(arrays[name]), f"{name} was copied"
    assert arrays["bf16"].dtype == pt_reader.BFLOAT16


def test_safetensors_shards_by_their_index(tmp_path: Path) -> None:
    sample = safetensors_sample()
    st_save_file({k: sample[k] for k in ("fp32", "bf16")}, str(tmp_path / "a.safetensors"))
    st_save_file({k: sample[k] for k in ("int64", "bool")}, str(tmp_path / "b.safetensors"))
    weight_map = {"fp32": "a.safetensors", "bf16": "a.safetensors", "int64": "b.safetensors", "bool": "b.safetensors"}
    (tmp_path / INDEX_NAME).write_text(json.dumps({"weight_map": weight_map}), encoding="utf-8")
    arrays, files = load_checkpoint_arrays(tmp_path)
    tensors, same_files = load_checkpoint_tensors(tmp_path)
    assert [f.name for f in files] == [f.name for f in same_files] == ["a.safetensors", "b.safetensors"]
    assert sorted(arrays) == sorted(tensors) == sorted(weight_map)
    for name in weight_map:
        assert_same(arrays[name], sample[name], name)
        assert torch.equal(tensors[name], sample[name])


# -- without torch ------------------------------------------------------------------------------------

WITHOUT_TORCH = """
import importlib.abc, json, sys
from pathlib import Path

class NoTorch(importlib.abc.MetaPathFinder):  # nor ml_dtypes: the installed app has neither
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "ml_dtypes"):
            raise ImportError(f"{name} is blocked in this process")

sys.meta_path.insert(0, NoTorch())
from tingji.export.pt_reader import read_state_dict
from tingji.export.safetensors_file import load_file_numpy

pt, st = read_state_dict(Path(sys.argv[1])), load_file_numpy(Path(sys.argv[2]))
print(json.dumps({
    "pt": {k: [v.astype("float64").ravel().tolist(), list(v.shape)] for k, v in pt.items()},
    "st": {k: [v.astype("float64").ravel().tolist(), list(v.shape)] for k, v in st.items()},
    "torch": sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "ml_dtypes")),
    "bf16": [str(pt["bf16"].dtype), str(st["bf16"].dtype)],
}))
"""


def test_both_readers_work_where_torch_and_ml_dtypes_cannot_be_imported(tmp_path: Path) -> None:
    state = sample_state()
    torch.save({"model": state}, tmp_path / "model.pt")
    st_save_file(safetensors_sample(), str(tmp_path / "model.safetensors"))
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_TORCH, str(tmp_path / "model.pt"), str(tmp_path / "model.safetensors")],
        env={**os.environ, "PYTHONPATH": str(ROOT / "app")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"torch modules loaded: {got['torch']}; {len(got['pt'])} + {len(got['st'])} tensors")
    assert got["torch"] == [] and got["bf16"] == ["float32", "float32"]  # widened without ml_dtypes
    for expected, read in ((state, got["pt"]), (safetensors_sample(), got["st"])):
        assert sorted(read) == sorted(expected)
        for name, tensor in expected.items():
            values = tensor.detach().double().numpy()
            assert read[name][1] == list(values.shape) and read[name][0] == values.ravel().tolist(), name
