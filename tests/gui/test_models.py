"""The model manager dialog, driven as a user would (offscreen), against a real local HTTP server.

The catalog is a test file (TINGJI_CATALOG) whose model is a zip of the tiny
model served over HTTPS from 127.0.0.1; a server that stops sending after a few hundred
kB stands in for a slow or dropped connection.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.support.gui import StallMeter
from tests.support.https_server import FileServer, trust_local_ca
from tingji.gui import i18n
from tingji.gui import settings as settings_mod
from tingji.gui.app import create_app, create_window
from tingji.gui.engine_host import EngineState
from tingji.gui.models.manager import ModelManagerDialog
from tingji.gui.models.progress import eta_seconds
from tingji.gui.settings import Settings
from tingji.models import store
from tingji.models.catalog import load_catalog
from tingji.models.diskspace import format_bytes
from tingji.models.installed import list_models, verify
from tingji.paths import catalog_overrides_path, data_dir, models_dir

pytestmark = pytest.mark.gui
NAME = "tiny-zip"
STALL_AT = 300_000
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def tiny_zip(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    dest = tmp_path_factory.mktemp("zip") / "tiny.zip"
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_STORED) as zf:  # stored: the cut lands mid-file
        for path in sorted(tiny_model.iterdir()):
            zf.write(path, "tiny/" + path.name)
    return dest.read_bytes()


class _SlowWriter:
    """A response stream that sleeps before every block: a steady, measurable download speed."""

    def __init__(self, stream, delay: float) -> None:
        self.stream, self.delay = stream, delay

    def write(self, data: bytes) -> int:
        time.sleep(self.delay)
        return self.stream.write(data)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


class SlowServer(FileServer):
    """tests/support/https_server.py's server, sending 16 kB every `delay` seconds (about 800 kB/s)."""

    delay = 0.02

    def _serve(self, h) -> None:
        h.wfile = _SlowWriter(h.wfile, self.delay)
        super()._serve(h)


@pytest.fixture
def server(tiny_zip: bytes, monkeypatch: pytest.MonkeyPatch):
    trust_local_ca(monkeypatch)
    with SlowServer({"/tiny.zip": tiny_zip}) as srv:
        yield srv


@pytest.fixture
def catalog(server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(
        json.dumps(
            {
                "format": 1,
                "models": [
                    {
                        "name": NAME,
                        "kind": "tingji-model",
                        "title": "Tiny test model",
                        "description": "a zip from 127.0.0.1",
                        "archives": [
                            {"name": "tiny.zip", "urls": [server.url("/tiny.zip")], "size": None, "sha256": None}
                        ],
                        "files": [{"path": "manifest.json"}],
                    },
                    {
                        "name": "elsewhere",
                        "kind": "peer-release",
                        "title": "Never downloaded",
                        "mirrors": [server.url("/gone/{path}")],
                        "files": [{"path": "x.onnx"}],
                    },
                ],
            }
        ),
        encoding="utf-8",
    )
    monkeypatch.setenv("TINGJI_CATALOG", str(path))
    return path


def _row(dialog: ModelManagerDialog, name: str) -> tuple[str, str, str, str]:
    r = [row.name for row in dialog.rows].index(name)
    return tuple(dialog.table.item(r, c).text() for c in range(4))  # type: ignore[return-value]


def _idle(qtbot, dialog: ModelManagerDialog) -> None:
    qtbot.waitUntil(lambda: not dialog.busy, timeout=TIMEOUT_MS)


def _in_modal(qtbot, scenario: Callable[[ModelManagerDialog], None], open_it: Callable[[], None]) -> None:
    """Run `scenario` on the dialog that `open_it` shows modally (exec), then close it; re-raise failures."""
    errors: list[BaseException] = []

    def drive() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ModelManagerDialog):
            QTimer.singleShot(20, drive)
            return
        try:
            scenario(dialog)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test below
            errors.append(exc)
        finally:
            if dialog.busy:
                dialog.cancel_task()
                _idle(qtbot, dialog)
            dialog.reject()

    QTimer.singleShot(0, drive)
    open_it()
    if errors:
        raise errors[0]


@pytest.mark.load_sensitive
def test_download_cancel_resume_and_use_from_the_main_window(qtbot, home, server, catalog, tiny_zip):
    settings_mod.save(Settings())
    create_app()
    window = create_window()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.engine.state_of("files") is EngineState.NONE, timeout=TIMEOUT_MS)
    meter = StallMeter()

    def scenario(dialog: ModelManagerDialog) -> None:
        assert [row.name for row in dialog.rows] == ["elsewhere", NAME]
        # The catalog publishes no hash for it: said in the table and the details, never "checked".
        assert _row(dialog, NAME) == (NAME, "—", "Not installed", "None published")
        dialog.select(NAME)
        assert dialog.buttons["download"].isEnabled() and not dialog.buttons["use"].isEnabled()
        assert "Tiny test model" in dialog.details.text()
        assert (
            "publishes no SHA-256 for 2 of its 2 files: downloading this model cannot check them"
            in dialog.details.text()
        )
        assert "every file is checked" not in dialog.heading.text()

        # A connection that goes quiet after 300 kB: progress shows, then the user cancels.
        server.behaviour["/tiny.zip"] = {"stall_after": STALL_AT}
        meter.start()
        dialog.buttons["download"].click()
        assert dialog.busy and not dialog.buttons["download"].isEnabled()
        qtbot.waitUntil(lambda: "left" in dialog.speed_label.text(), timeout=TIMEOUT_MS)
        assert dialog.progress_bar.maximum() == 1000
        assert 0 < dialog.progress_bar.value() <= int(1000 * STALL_AT / len(tiny_zip))
        assert dialog.stage_label.text() == "Downloading tiny.zip"
        total = re.escape(format_bytes(len(tiny_zip)))  # the tiny model's size follows the exporter
        # The speed is measured, so its unit and the time left follow how fast this machine read the bytes.
        speed, left = r"[\d.]+ (?:bytes|kB|MB)/s", r"(?:\d+ s|\d+ min \d+ s|\d+ h \d+ min) left"
        assert re.fullmatch(rf"[\d.]+ kB of {total} · {speed} · {left}", dialog.speed_label.text())
        assert dialog.task_box.isVisible()
        dialog.cancel_button.click()
        _idle(qtbot, dialog)
        assert "cancelled" in dialog.log.toPlainText()
        # Nothing installed, nothing half-installed; the partial file waits in the cache.
        assert list_models() == [] and [p.name for p in models_dir().iterdir()] == []
        part = data_dir() / "cache" / NAME / "archives" / "tiny.zip.part"
        kept = part.stat().st_size
        assert 0 < kept <= STALL_AT
        assert _row(dialog, NAME)[2] == f"Partially downloaded ({kept / 1e3:.1f} kB), resumable"
        assert dialog.buttons["download"].text() == "Resume download"

        # Resume: only the rest is fetched.
        del server.behaviour["/tiny.zip"]
        dialog.buttons["download"].click()
        _idle(qtbot, dialog)
        meter.stop()
        last = server.requests_for("/tiny.zip")[-1]
        assert (last.range, last.status) == (f"bytes={kept}-", 206)
        assert _row(dialog, NAME)[2:] == ("Installed", "Pinned by you")
        assert "pinned by your first download, not published by the catalog" in dialog.details.text()
        verify(NAME)
        assert not part.exists()
        log = dialog.log.toPlainText()
        assert f"Installed {NAME}." in log
        assert (
            f"tiny.zip: not checked (no published SHA-256); pinned {hashlib.sha256(tiny_zip).hexdigest()} "
            "now that the model verified"
        ) in log
        assert dialog.models_changed

        # Use this model: the app's setting changes and the engine loads it.
        dialog.select(NAME)
        assert dialog.buttons["use"].isEnabled()
        dialog.buttons["use"].click()
        assert window.settings.model == NAME and settings_mod.load().model == NAME
        assert _row(dialog, NAME)[2] == "Installed · in use" and not dialog.buttons["use"].isEnabled()
        qtbot.waitUntil(lambda: window.engine.state_of("files") is EngineState.READY, timeout=TIMEOUT_MS)
        assert window.engine.detail_of("files") == NAME
        assert not dialog.models_changed  # the window need not reload again

    _in_modal(qtbot, scenario, window.models.open_manager)
    print(f"\nlongest event-loop stall while downloading, cancelling, resuming: {meter.summary()}")
    assert meter.max_stall_s < 0.5, meter.summary()
    assert window.engine.state_of("files") is EngineState.READY
    window.close()


def test_verify_remove_import_and_closing_mid_download(qtbot, home, server, catalog, tiny_model, monkeypatch):
    store.import_folder(tiny_model, "tiny")
    dialog = ModelManagerDialog(current="tiny")
    qtbot.addWidget(dialog)
    dialog.show()
    assert _row(dialog, "tiny")[2:] == ("Installed · in use", "—")  # not from the catalog

    dialog.select("tiny")
    dialog.buttons["verify"].click()
    _idle(qtbot, dialog)
    assert "tiny: all 7 files match their SHA-256." in dialog.log.toPlainText()
    data = (models_dir() / "tiny" / "tokens.txt").read_bytes()
    (models_dir() / "tiny" / "tokens.txt").write_bytes(data[:-2] + b"9\n")
    dialog.buttons["verify"].click()
    _idle(qtbot, dialog)
    assert "Verification of tiny failed:" in dialog.log.toPlainText()
    assert "tokens.txt fails its SHA-256 check" in dialog.log.toPlainText()

    answers = [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes]
    questions: list[str] = []

    def question(parent, title, text, *args):
        questions.append(text)
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "question", question)
    dialog.buttons["remove"].click()
    assert [m.name for m in list_models()] == ["tiny"]
    dialog.buttons["remove"].click()
    _idle(qtbot, dialog)
    assert "Tingji is using it now" in questions[-1]
    assert list_models() == [] and dialog.models_changed and dialog.current == ""

    dialog.start_import(str(tiny_model), "again")
    _idle(qtbot, dialog)
    assert "Installed again." in dialog.log.toPlainText() and _row(dialog, "again")[2] == "Installed"

    # Closing during a download cancels it first; the dialog goes once the worker has stopped.
    server.behaviour["/tiny.zip"] = {"stall_after": STALL_AT}
    dialog.select(NAME)
    dialog.buttons["download"].click()
    qtbot.waitUntil(lambda: dialog.progress_bar.value() > 0, timeout=TIMEOUT_MS)
    dialog.reject()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=TIMEOUT_MS)
    assert not dialog.busy and [m.name for m in list_models()] == ["again"]


def test_forget_pinned_hashes_button(qtbot, home, catalog, monkeypatch) -> None:
    load_catalog().pin(NAME, {"archive:tiny.zip": ("ab" * 32, 1234)})  # as a first download leaves it
    dialog = ModelManagerDialog()
    qtbot.addWidget(dialog)
    dialog.select("elsewhere")
    assert not dialog.buttons["forget"].isEnabled()  # nothing pinned there
    dialog.select(NAME)
    assert dialog.buttons["forget"].isEnabled()

    questions: list[str] = []
    answers = [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes]
    monkeypatch.setattr(
        QMessageBox, "question", lambda parent, title, text, *a: (questions.append(text), answers.pop(0))[1]
    )
    dialog.buttons["forget"].click()
    assert load_catalog().get(NAME).archives[0].sha256 == "ab" * 32  # "No" keeps it
    dialog.buttons["forget"].click()
    _idle(qtbot, dialog)
    assert "Forget the 1 SHA-256 hashes pinned by the first download of tiny-zip?" in questions[-1]
    assert load_catalog().get(NAME).archives[0].sha256 is None
    assert f"Forgot 1 pinned SHA-256 hashes of {NAME}" in dialog.log.toPlainText()
    assert not dialog.buttons["forget"].isEnabled()
    print(f"the Forget button dropped the pin of {NAME} from {catalog_overrides_path().name}")
    dialog.reject()


def test_chinese_texts_and_eta(qtbot, home, catalog) -> None:
    app = create_app()
    i18n.install(app, "zh_CN")
    try:
        dialog = ModelManagerDialog()
        qtbot.addWidget(dialog)
        assert dialog.windowTitle() == "语音模型"
        assert dialog.buttons["use"].text() == "用于文件转写"
        assert dialog.buttons["forget"].text() == "忘记固定的哈希"
        assert _row(dialog, NAME)[2:] == ("未安装", "未公布")
        dialog.reject()
    finally:
        i18n.install(app, "en")
    assert eta_seconds(50, 150, 10.0) == 10.0
    assert eta_seconds(50, None, 10.0) is None and eta_seconds(50, 150, 0.0) is None
