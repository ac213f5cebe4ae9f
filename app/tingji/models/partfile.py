"""A partial download: the `.part` file, a hash of its bytes, and what version of the file they came from.

Resuming appends the rest of a file to bytes fetched earlier, perhaps days
earlier. If the server's file changed meanwhile, old and new bytes would be
spliced into a file that never existed, and with no published hash to catch
it that file would be trusted. So when a download starts, the server's
validator for that version of the file (its ETag, else its Last-Modified date,
and its length) is kept next to the `.part` in `<name>.part.resume`, and every
resume asks with `If-Range`: a server whose file changed answers with the whole
new file (200) instead of the rest (206), and the `.part` starts over.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

MiB = 1 << 20
RESUME_SUFFIX = ".resume"


@dataclass(frozen=True)
class Validator:
    """What identifies one version of the server's file."""

    etag: str | None
    last_modified: str | None
    length: int | None  # the whole file's length, when the server stated it

    @classmethod
    def of(cls, resp: http.client.HTTPResponse, length: int | None) -> Validator | None:
        etag = resp.getheader("ETag")
        last_modified = resp.getheader("Last-Modified")
        if not etag and not last_modified:
            return None
        return cls(etag.strip() if etag else None, last_modified.strip() if last_modified else None, length)

    @property
    def if_range(self) -> str | None:
        """The `If-Range` value: a strong ETag, else the date (a weak ETag may not be used there)."""
        if self.etag and not self.etag.startswith("W/"):
            return self.etag
        return self.last_modified

    def differs(self, other: Validator | None, length: int | None) -> str | None:
        """Why a 206 answer is not for this version of the file (a server that ignored If-Range), or None."""
        if self.length is not None and length is not None and length != self.length:
            return f"its length changed from {self.length} to {length} bytes"
        if other is None:
            return None
        if self.etag and other.etag and self.etag != other.etag:
            return f"its ETag changed from {self.etag} to {other.etag}"
        if (
            not (self.etag and other.etag)
            and self.last_modified
            and other.last_modified
            and self.last_modified != other.last_modified
        ):
            return f"it was modified ({other.last_modified})"
        return None


class PartFile:
    """The `.part` file plus a running SHA-256 of exactly the bytes it holds, and its `Validator`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.resume_path = path.with_name(path.name + RESUME_SUFFIX)
        self.hasher = hashlib.sha256()
        self.length = 0
        self.validator: Validator | None = None
        self.resync()
        self.validator = self._read_validator() if self.length else None

    def resync(self) -> None:
        """Re-read the bytes on disk (after a failed write, the file may hold less than counted)."""
        self.hasher = hashlib.sha256()
        self.length = 0
        if not self.path.is_file():
            return
        with open(self.path, "rb") as fh:
            while block := fh.read(MiB):
                self.hasher.update(block)
                self.length += len(block)

    def reset(self, validator: Validator | None = None) -> None:
        """Empty the `.part` and record which version of the file its new bytes will come from."""
        with open(self.path, "wb"):
            pass
        self.hasher = hashlib.sha256()
        self.length = 0
        self.validator = validator
        if validator is None:
            self.resume_path.unlink(missing_ok=True)
            return
        tmp = self.resume_path.with_name(self.resume_path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(asdict(validator), fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.resume_path)

    def delete(self) -> None:
        self.path.unlink(missing_ok=True)
        self.resume_path.unlink(missing_ok=True)
        self.hasher = hashlib.sha256()
        self.length = 0
        self.validator = None

    def finished(self, dest: Path) -> None:
        """The `.part` is complete and checked: it becomes `dest`; its validator is no longer needed."""
        os.replace(self.path, dest)
        self.resume_path.unlink(missing_ok=True)

    def _read_validator(self) -> Validator | None:
        try:
            data = json.loads(self.resume_path.read_text(encoding="utf-8"))
            length = data.get("length")
            return Validator(
                data.get("etag") or None, data.get("last_modified") or None, length if isinstance(length, int) else None
            )
        except (OSError, ValueError, AttributeError):
            return None  # none recorded (or unreadable): resuming is allowed only with a known hash
