"""What every model-manager test gets: its own user data folder, and a local HTTPS server on demand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.https_server import FileServer, trust_local_ca


@pytest.fixture(autouse=True)
def _own_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test installs into, or reads the catalog of, anything but a fresh folder."""
    monkeypatch.delenv("TINGJI_CATALOG", raising=False)
    return home


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    """A real HTTPS server on 127.0.0.1 whose certificate the downloader trusts for this test."""
    trust_local_ca(monkeypatch)
    with FileServer() as srv:
        yield srv
