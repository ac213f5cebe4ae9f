#!/usr/bin/env python3
"""Build llama.cpp's CPU backend with Tingji's kernel patches for Linux, cached; install it with --install.

usage: tools/llama_cpu.py [--install] [--print-path]

pip builds llama-cpp-python from its sdist as it is. Tingji's changes to the CPU backend
(tools/windows/recipe.py's LLAMA_CPU_PATCHES: the tiled K-quant kernel stops waiting on memory, which
makes verifying a drafted block ~17 % cheaper, with bit-identical results) are built here from the same
pinned sdist, for this machine's CPU as pip builds it, into the Windows environment's cache. Only
libggml-cpu changes; about 1 min on 2 cores. Needs cmake and ninja-build.
  --install      make llama_cpp/lib-cpu: pip's libraries with the patched libggml-cpu, and a stamp of
                 the llama-cpp-python release they belong to. Tingji's decoder loads it on the CPU
                 (engine/decoder_device.py) while the stamp matches; the frozen Linux app ships it as
                 its llama_cpp/lib (installer/tingji.spec).
  --print-path   print the folder holding the built library
Exits non-zero with one line saying what could not be had.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "windows"))

import recipe  # noqa: E402
import winenv  # noqa: E402

STAMP = "llama-cpp-python.version"  # engine/decoder_device.py's CPU_STAMP


def _cpu_flags() -> str:
    """This CPU's feature flags: a native build from another CPU could stop on an illegal instruction."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return " ".join(sorted(line.split(":", 1)[1].split()))
    return ""


def ensure_built() -> Path:
    """The built library's folder (built when missing); SetupError says why not."""
    linux = winenv.linux_llama_version()
    if linux is not None and linux != recipe.LLAMA_CPP_PYTHON:
        raise winenv.SetupError(
            f"llama-cpp-python {linux} is installed; the build is pinned to {recipe.LLAMA_CPP_PYTHON}"
        )
    for tool in ("cmake", "ninja"):
        if not shutil.which(tool):
            raise winenv.SetupError(f"{tool} is missing (Debian packages cmake, ninja-build)")
    root = winenv.cache_root()
    key = winenv._digest(
        recipe.LLAMA_CPP_PYTHON_SHA256, recipe.LLAMA_CPU_PATCHES, _cpu_flags(), Path(__file__).read_bytes()
    )

    def build(tmp: Path) -> None:
        work = root / f".llama-cpu-linux-{key}.work"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        winenv._run(["tar", "xzf", sdist, "-C", work], "unpacking llama-cpp-python")
        src = next(work.glob("llama_cpp_python-*"))
        winenv.patch_llama(src, recipe.LLAMA_CPU_PATCHES)
        flags = ["-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_INSTALL_PREFIX={work / 'install'}", "-DLLAVA_BUILD=OFF"]
        winenv._run(["cmake", "-S", src, "-B", work / "build", "-G", "Ninja", *flags], "configuring llama.cpp (CPU)")
        jobs = str(os.cpu_count() or 2)
        targets = list(recipe.LLAMA_CPU_TARGETS)
        winenv._run(["cmake", "--build", work / "build", "-j", jobs, "--target", *targets], "building llama.cpp (CPU)")
        for name in targets:
            built = sorted((work / "build").rglob(f"lib{name}.so.*.*"))
            if not built:
                raise winenv.SetupError(f"the llama.cpp CPU build made no lib{name}.so")
            shutil.copy2(built[0], tmp / f"lib{name}.so", follow_symlinks=True)
        shutil.rmtree(work)

    with winenv._locked(root):
        sdist = winenv.download_sdist(root, "llama-cpp-python", recipe.LLAMA_CPP_PYTHON, recipe.LLAMA_CPP_PYTHON_SHA256)
        return winenv._component(root, "llama-cpu-linux", key, build)


def install(built: Path) -> Path:
    """llama_cpp/lib-cpu: a copy of pip's llama_cpp/lib whose patched libraries are replaced by `built`'s."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        raise winenv.SetupError("llama_cpp is not installed (pip install llama-cpp-python)")
    package = Path(spec.origin).parent
    target = package / recipe.LLAMA_CPU_FOLDER
    tmp = package / f".{recipe.LLAMA_CPU_FOLDER}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(package / "lib", tmp, symlinks=True)
    for name in recipe.LLAMA_CPU_TARGETS:
        # pip's wheel holds each library three times (libX.so, .so.0, .so.0.N.M) as plain files
        copies = sorted(tmp.glob(f"lib{name}.so*"))
        if not copies:
            raise winenv.SetupError(f"{package / 'lib'} has no lib{name}.so")
        for copy in copies:
            copy.unlink()
            shutil.copy2(built / f"lib{name}.so", copy)
    (tmp / STAMP).write_text(recipe.LLAMA_CPP_PYTHON + "\n")
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target


def main(argv: list[str]) -> int:
    return winenv.build_tool_main(argv, "tools/llama_cpu.py", __doc__ or "", ensure_built, install)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
