"""sherpa-onnx as an optional peer for SenseVoice-Small: its own export of the same checkpoint.

sherpa-onnx (pip package `sherpa-onnx`) runs SenseVoice from an ONNX file
made by its script `scripts/sense-voice/export-onnx.py`, which imports
`model.py` (and its `utils/`) from FunAudioLLM/SenseVoice. None of that code
is committed here: at benchmark time this module reads the three sources
from local copies of the two GitHub repositories (a checkout or a bare git
mirror; `TINGJI_SHERPA_ONNX_REPO`, `TINGJI_SENSEVOICE_REPO`), applies the
few edits a run on this machine needs, and runs the export on the
benchmark's own random-weight checkpoint:

* `model.py`: `SinusoidalPositionEncoder.__init__` must call
  `super().__init__()` (torch 2.13 refuses a Module that skips it);
* `export-onnx.py`: the checkpoint folder instead of the hub name
  "iic/SenseVoiceSmall", no update check (no network), and the TorchScript
  exporter (`dynamo=False`; torch 2.13 defaults to the dynamo one, while
  sherpa-onnx's published files come from TorchScript at opset 13).

Its outputs (`model.onnx`, `model.int8.onnx` - unsigned 8-bit weights - and
`tokens.txt`) are what `sherpa_onnx.OfflineRecognizer.from_sense_voice`
loads. When the package or a source is missing the peer is skipped with one
line saying what to provide.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import cached_build, keep_build

DEFAULT_MIRRORS = Path("/work/.mirror")
SHERPA_SCRIPT = "scripts/sense-voice/export-onnx.py"
SENSEVOICE_FILES = ("model.py", "utils/__init__.py", "utils/ctc_alignment.py")

# (file, text to find, replacement): each must match exactly once, or the sources changed under us.
EDITS = [
    (
        "model.py",
        "    def __init__(self, d_model=80, dropout_rate=0.1):\n        pass\n",
        "    def __init__(self, d_model=80, dropout_rate=0.1):\n        super().__init__()\n",
    ),
    (
        "export-onnx.py",
        'model="iic/SenseVoiceSmall", device="cpu"',
        'model=os.environ["SENSEVOICE_CHECKPOINT"], device="cpu", disable_update=True',
    ),
    (
        "export-onnx.py",
        "        opset_version=opset_version,\n",
        "        opset_version=opset_version,\n        dynamo=False,\n",
    ),
]


def _repo(env: str, name: str) -> Path:
    return Path(os.environ.get(env) or DEFAULT_MIRRORS / name / "repo")


def _source(repo: Path, path: str) -> str | None:
    """A file of a repository: from a checkout, or from HEAD of a (bare) git mirror."""
    if (repo / path).is_file():
        return (repo / path).read_text(encoding="utf-8")
    if not repo.is_dir():
        return None
    r = subprocess.run(["git", f"--git-dir={repo}", "show", f"HEAD:{path}"], capture_output=True, text=True)
    if r.returncode != 0:
        r = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def sources() -> tuple[dict[str, str] | None, str]:
    """The export script and SenseVoice's model code, or None and why not."""
    sherpa = _repo("TINGJI_SHERPA_ONNX_REPO", "k2-fsa+sherpa-onnx")
    sense = _repo("TINGJI_SENSEVOICE_REPO", "FunAudioLLM+SenseVoice")
    files = {"export-onnx.py": _source(sherpa, SHERPA_SCRIPT)}
    files.update({name: _source(sense, name) for name in SENSEVOICE_FILES})
    missing = [name for name, text in files.items() if text is None]
    if missing:
        return None, (
            f"sources not found ({', '.join(missing)}): set TINGJI_SHERPA_ONNX_REPO to a copy of "
            "github.com/k2-fsa/sherpa-onnx and TINGJI_SENSEVOICE_REPO to one of "
            "github.com/FunAudioLLM/SenseVoice"
        )
    return files, ""  # type: ignore[return-value]


def unavailable() -> str | None:
    """Why the peer cannot run here, or None."""
    try:
        import sherpa_onnx  # noqa: F401
    except ImportError:
        return "the sherpa-onnx package is not installed (pip install sherpa-onnx==2.0.1)"
    files, why = sources()
    return None if files is not None else why


def build(checkpoint: Path, out: Path) -> dict[str, Any]:
    """Run sherpa-onnx's SenseVoice export on `checkpoint` into `out` (cached); returns paths and timings."""
    out = out.resolve()
    if (cached := cached_build(out)) is not None:
        return cached
    files, why = sources()
    if files is None:
        raise RuntimeError(why)
    for name, find, replace in EDITS:
        if files[name].count(find) != 1:
            raise RuntimeError(f"sherpa-onnx peer: {name} changed upstream (edit not applicable: {find.strip()!r})")
        files[name] = files[name].replace(find, replace)
    work = out.with_name(out.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    env = dict(os.environ, SENSEVOICE_CHECKPOINT=str(Path(checkpoint).resolve()), PYTHONPATH=str(work))
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "export-onnx.py"], cwd=work, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if r.returncode != 0 or not (work / "model.int8.onnx").is_file():
        raise RuntimeError("sherpa-onnx export failed:\n" + "\n".join((r.stderr or r.stdout).splitlines()[-15:]))
    info = {
        "export_s": round(seconds, 1),
        "model": str(out / "model.onnx"),
        "model_int8": str(out / "model.int8.onnx"),
        "tokens": str(out / "tokens.txt"),
        "edits": [f"{name}: {find.strip()!r}" for name, find, _ in EDITS],
    }
    return keep_build(work, out, ("model.onnx", "model.int8.onnx", "tokens.txt"), info)
