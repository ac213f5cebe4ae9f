#!/usr/bin/env python3
"""Build llama.cpp's Vulkan backend for Linux (optional GPU decoding), cached; install it with --install.

usage: tools/llama_vulkan.py [--install] [--print-path]

Builds the llama.cpp that the installed llama-cpp-python vendors, with GGML_VULKAN, from its pinned
sdist (tools/windows/recipe.py), in the Windows environment's cache (tools/windows/vulkan_build.py).
Needs Debian's glslc, libvulkan-dev, spirv-headers, cmake and ninja-build; about 4 min on 2 cores.
  --install      copy the libraries into the installed llama_cpp package as lib-vulkan/, where
                 Tingji's `--decoder-device` finds them (the CPU libraries stay as they are)
  --print-path   print the folder holding the built libraries (for TINGJI_LLAMA_VULKAN=...)
Exits non-zero with one line saying what could not be had.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "windows"))

import recipe  # noqa: E402
import vulkan_build  # noqa: E402
import winenv  # noqa: E402


def ensure_built() -> Path:
    """The built Linux Vulkan libraries' folder (built when missing); SetupError says why not."""
    linux = winenv.linux_llama_version()
    if linux is not None and linux != recipe.LLAMA_CPP_PYTHON:
        raise winenv.SetupError(
            f"llama-cpp-python {linux} is installed; the build is pinned to {recipe.LLAMA_CPP_PYTHON}"
        )
    root = winenv.cache_root()
    with winenv._locked(root):
        sdist = winenv.download_sdist(root, "llama-cpp-python", recipe.LLAMA_CPP_PYTHON, recipe.LLAMA_CPP_PYTHON_SHA256)
        return vulkan_build.build_linux(root, sdist)


def install(built: Path) -> Path:
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        raise winenv.SetupError("llama_cpp is not installed (pip install llama-cpp-python)")
    target = Path(spec.origin).parent / recipe.LLAMA_VULKAN_FOLDER
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(built, target, symlinks=True)
    return target


def main(argv: list[str]) -> int:
    return winenv.build_tool_main(argv, "tools/llama_vulkan.py", __doc__ or "", ensure_built, install)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
