"""llama.cpp's Vulkan backend, built from the source llama-cpp-python vendors: for Windows and for Linux.

The Windows set is cross-compiled with mingw-w64 beside the CPU DLLs (`winenv.build_llama`) with the
same CPU flags and runtime linking, plus `GGML_VULKAN`; it goes into the Windows Python's
`llama_cpp/lib-vulkan`, where `tingji.engine.decoder_device` looks for it. The Vulkan loader,
vulkan-1.dll, is not shipped: it comes with the GPU driver (under Wine, winevulkan). The Linux set is
the optional build `tools/llama_vulkan.py` makes and installs. Both are cached components of the
Windows environment's cache (`winenv._component`), named after a hash of what they are built from.

Standard library only, like winenv.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import recipe
import winenv
from winenv import HERE, SetupError, _digest, _run

TARGETS = ("llama", "ggml", "ggml-base", "ggml-cpu", "ggml-vulkan")
# What the mingw build compiles against: the Vulkan and SPIR-V headers are the same text on every
# platform, copied out of /usr/include so that the Windows compiler never sees the Linux headers.
HEADER_DIRS = ("vulkan", "vk_video", "spirv")


def patch_source(src: Path) -> None:
    """Apply recipe.LLAMA_VULKAN_PATCHES to an unpacked llama-cpp-python (each must match exactly once)."""
    for rel, old, new, why in recipe.LLAMA_VULKAN_PATCHES:
        path = src / "vendor" / "llama.cpp" / rel
        text = path.read_text()
        if text.count(old) != 1:
            raise SetupError(f"{rel}: the text to patch ({why}) is not there once; the pin moved on")
        path.write_text(text.replace(old, new))


def _key(*extra: object) -> str:
    return _digest(
        recipe.LLAMA_CPP_PYTHON_SHA256,
        recipe.LLAMA_CMAKE_ARGS,
        recipe.LLAMA_VULKAN_CMAKE_ARGS,
        recipe.LLAMA_VULKAN_PATCHES,
        *extra,
    )


def _unpack(root: Path, sdist: Path, name: str) -> tuple[Path, Path]:
    """The patched source and its build folder, kept until the build succeeds (ninja resumes)."""
    work = root / f".{name}.work"
    if not (work / "build" / "build.ninja").is_file():
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        _run(["tar", "xzf", sdist, "-C", work], "unpacking llama-cpp-python")
        patch_source(next(work.glob("llama_cpp_python-*")))
    return work, next(work.glob("llama_cpp_python-*"))


def _build(src: Path, build: Path, flags: list[str], what: str) -> None:
    if not shutil.which("glslc"):
        raise SetupError("glslc is missing (Debian package glslc): llama.cpp's Vulkan shaders are compiled with it")
    _run(["cmake", "-S", src, "-B", build, "-G", "Ninja", *flags], f"configuring llama.cpp ({what})")
    jobs = str(os.cpu_count() or 2)
    _run(["cmake", "--build", build, "-j", jobs, "--target", *TARGETS], f"building llama.cpp ({what})")


def _common_flags(work: Path) -> list[str]:
    return [
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DCMAKE_INSTALL_PREFIX={work / 'install'}",  # never the host's /usr/local
        *recipe.LLAMA_CMAKE_ARGS,
        *recipe.LLAMA_VULKAN_CMAKE_ARGS,
    ]


# ---------------------------------------------------------------- Windows (mingw-w64)


def vulkan_import_library(include: Path, out: Path) -> Path:
    """libvulkan-1.a for mingw: an import library of vulkan-1.dll made from the headers' prototypes.

    Every core and Win32 function the loader may export is listed; the DLL that links it imports
    only the ones it calls (ggml-vulkan calls vkGetInstanceProcAddr and resolves the rest itself).
    """
    names: set[str] = set()
    for header in ("vulkan_core.h", "vulkan_win32.h"):
        text = (include / "vulkan" / header).read_text()
        names |= set(re.findall(r"VKAPI_ATTR \w+ VKAPI_CALL (vk\w+)\(", text))
    if "vkGetInstanceProcAddr" not in names:
        raise SetupError("the Vulkan headers declare no vkGetInstanceProcAddr")
    definition = out.with_suffix(".def")
    definition.write_text("LIBRARY vulkan-1.dll\nEXPORTS\n" + "".join(f"  {n}\n" for n in sorted(names)))
    _run(["x86_64-w64-mingw32-dlltool", "-d", definition, "-l", out], "making vulkan-1's import library")
    return out


def _mingw_sdk(work: Path) -> list[str]:
    """CMake flags that point the cross build at private copies of the headers and the import library."""
    sdk = work / "vulkan-sdk"
    include = sdk / "include"
    for name in HEADER_DIRS:
        system = Path("/usr/include") / name
        if not system.is_dir():
            raise SetupError(f"{system} is missing (Debian packages libvulkan-dev, spirv-headers)")
        shutil.copytree(system, include / name, dirs_exist_ok=True)
    lib = vulkan_import_library(include, sdk / "libvulkan-1.a")
    # find_package(SPIRV-Headers CONFIG) only has to succeed: the headers are on the include path.
    config = sdk / "cmake" / "SPIRV-Headers"
    config.mkdir(parents=True, exist_ok=True)
    (config / "SPIRV-HeadersConfig.cmake").write_text("set(SPIRV-Headers_FOUND TRUE)\n")
    return [
        f"-DVulkan_INCLUDE_DIR={include}",
        f"-DVulkan_LIBRARY={lib}",
        f"-DVulkan_GLSLC_EXECUTABLE={shutil.which('glslc')}",
        f"-DSPIRV-Headers_DIR={config}",
        f"-DCMAKE_CXX_FLAGS=-I{include}",
    ]


def build_windows(root: Path, sdist: Path) -> Path:
    """The component `llama-vulkan-*`: recipe.LLAMA_VULKAN_DLLS, stripped, mingw's runtime linked in."""
    key = _key(
        recipe.LLAMA_LINK_FLAGS,
        (HERE / "mingw-w64.cmake").read_bytes(),
        (HERE / "mingw_compat.h").read_bytes(),
        Path(__file__).read_bytes(),
    )

    def build(tmp: Path) -> None:
        work, src = _unpack(root, sdist, f"llama-vulkan-{key}")
        flags = [
            f"-DCMAKE_TOOLCHAIN_FILE={HERE / 'mingw-w64.cmake'}",
            f"-DCMAKE_C_FLAGS=-include {HERE / 'mingw_compat.h'}",
            f"-DCMAKE_SHARED_LINKER_FLAGS={recipe.LLAMA_LINK_FLAGS}",
            *_common_flags(work),
            *_mingw_sdk(work),
        ]
        _build(src, work / "build", flags, "Vulkan, mingw-w64")
        for dll in recipe.LLAMA_VULKAN_DLLS:
            built = work / "build" / "bin" / dll
            if not built.is_file():
                raise SetupError(f"the llama.cpp Vulkan build made no {dll}")
            shutil.copy(built, tmp / dll)
            _run(["x86_64-w64-mingw32-strip", "--strip-unneeded", tmp / dll], f"strip {dll}")
        imported = {name for dll in recipe.LLAMA_VULKAN_DLLS for name in winenv._imported_dlls(tmp / dll)}
        foreign = {name for name in imported if name.startswith(("libstdc++", "libgcc", "libwinpthread"))}
        if foreign:
            raise SetupError(f"llama.cpp's Vulkan DLLs still need mingw's runtime DLLs: {sorted(foreign)}")
        if "vulkan-1.dll" not in imported:
            raise SetupError("ggml-vulkan.dll does not import vulkan-1.dll: the Vulkan backend was not built")
        shutil.rmtree(work)

    return winenv._component(root, "llama-vulkan", key, build)


# ---------------------------------------------------------------- Linux


def build_linux(root: Path, sdist: Path) -> Path:
    """The component `llama-vulkan-linux-*`: the shared libraries (with their soname links), RUNPATH $ORIGIN."""
    key = _key(Path(__file__).read_bytes())

    def build(tmp: Path) -> None:
        work, src = _unpack(root, sdist, f"llama-vulkan-linux-{key}")
        _build(src, work / "build", _common_flags(work), "Vulkan, Linux")
        found = 0
        for lib in sorted((work / "build").rglob("lib*.so*")):
            if lib.name.split(".so")[0].removeprefix("lib") in TARGETS:
                shutil.copy2(lib, tmp / lib.name, follow_symlinks=False)
                found += 1
        if not (tmp / "libggml-vulkan.so").exists() or not (tmp / "libllama.so").exists():
            raise SetupError(f"the llama.cpp Vulkan build made no libggml-vulkan.so / libllama.so ({found} files)")
        shutil.rmtree(work)

    return winenv._component(root, "llama-vulkan-linux", key, build)
