"""Checking, with strace on a real process, that files are flushed to disk before the rename publishing them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_LINE = re.compile(r"^(?P<pid>\d+)\s+(?P<call>\w+)\((?P<args>.*)\)\s+=\s+(?P<ret>-?\d+)")


def traced(cmd: list[str], env: dict[str, str], log: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run `cmd` under strace, recording opens, fsyncs, renames and closes of every thread."""
    return subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-o",
            str(log),
            "-e",
            "trace=openat,fsync,fdatasync,rename,renameat,renameat2,close",
            *cmd,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def published_durably(log: Path, final: Path) -> list[str]:
    """Problems with how `final` was published (empty: data fsynced before the rename, folder fsynced after).

    Follows file descriptors per process: the temporary file opened for writing
    must be fsynced before it is renamed to `final`, and the folder holding
    `final` must be opened and fsynced after the rename.
    """
    open_fds: dict[tuple[str, str], str] = {}  # (pid, fd) -> path
    synced: set[str] = set()
    renamed_at: int | None = None
    tmp_name: str | None = None
    dir_synced = False
    lines = log.read_text(errors="replace").splitlines()
    for n, line in enumerate(lines):
        m = _LINE.match(line)
        if not m or m["ret"].startswith("-"):
            continue
        pid, call, args, ret = m["pid"], m["call"], m["args"], m["ret"]
        paths = re.findall(r'"([^"]*)"', args)
        if call == "openat" and paths:
            open_fds[(pid, ret)] = paths[0]
        elif call in ("fsync", "fdatasync"):
            path = open_fds.get((pid, args.strip()))
            if path is not None:
                synced.add(path)
                if renamed_at is not None and Path(path) == final.parent:
                    dir_synced = True
        elif call == "close":
            open_fds.pop((pid, args.strip()), None)
        elif call.startswith("rename") and len(paths) >= 2 and Path(paths[-1]) == final:
            tmp_name, renamed_at = paths[-2], n
            if tmp_name not in synced:
                return [f"{tmp_name} renamed to {final} without an fsync of its data first"]
            synced.discard(tmp_name)
    if renamed_at is None:
        return [f"{final} was never published by a rename"]
    return [] if dir_synced else [f"the folder of {final} was not fsynced after the rename"]
