"""Every error message is translated in the Chinese UI, by its code, fields and nested errors included."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtCore import QCoreApplication, Qt, QTranslator  # noqa: E402

from tests.support.paths import APP  # noqa: E402
from tests.test_errors import catalogue_modules  # noqa: E402
from tingji.dictation import messages as dictation_messages  # noqa: E402
from tingji.dictation.hotkey import HotkeyError  # noqa: E402
from tingji.engine import messages as engine_messages  # noqa: E402
from tingji.errors import AudioError, TingjiError, WarningMessage, catalogue, placeholders, warning  # noqa: E402
from tingji.gui import i18n  # noqa: E402
from tingji.gui.errors import (  # noqa: E402
    CATALOGUES,
    CONTEXT,
    localized,
    localized_stored,
    localized_warnings,
    problem_of,
)
from tingji.gui.files.queue_model import Column, QueueModel  # noqa: E402
from tingji.gui.files.storage import Job, Status, warning_columns  # noqa: E402

pytestmark = pytest.mark.gui

QM = APP / "tingji" / "gui" / "i18n" / "tingji_zh_CN.qm"


def test_every_catalogue_is_listed_for_translation() -> None:
    listed = sorted(module.__name__ for module in CATALOGUES)
    print(f"catalogues listed: {listed}")
    assert listed == sorted(catalogue_modules())


def test_every_error_code_has_a_chinese_translation_with_the_same_fields(qapp) -> None:
    translator = QTranslator()
    assert translator.load(str(QM)), QM
    checked, untranslated, wrong_fields = 0, [], []
    for module in CATALOGUES:
        for message in catalogue(module):
            checked += 1
            zh = translator.translate(CONTEXT, message.text, message.code)
            if not zh:
                untranslated.append(message.code)
            elif placeholders(zh) != placeholders(message.text):
                wrong_fields.append(message.code)
    print(f"{checked} codes checked in {QM.name}; untranslated: {untranslated}; fields differ: {wrong_fields}")
    assert checked > 250 and not untranslated and not wrong_fields, "run tools/translations.py (see its docstring)"


@pytest.fixture
def chinese(qapp):
    i18n.install(QCoreApplication.instance(), "zh_CN")
    yield
    i18n.install(QCoreApplication.instance(), "en")


def test_errors_are_shown_in_chinese_with_their_fields_and_nested_errors(chinese) -> None:
    hotkey = HotkeyError(dictation_messages.HOTKEY_UNAVAILABLE, reason=HotkeyError(dictation_messages.NO_X_DISPLAY))
    audio = AudioError(engine_messages.DECODE_FAILED, path="/x/会议.mp3", at=12.34, reason="Invalid data")
    shown = [localized(hotkey), localized(audio), localized(problem_of(audio))]
    print(shown)
    assert shown == [
        "全局快捷键不可用：没有 X 显示服务（无法连接到 X）",
        "/x/会议.mp3: 在 12.3 秒处解码失败：Invalid data",
        "在 12.3 秒处解码失败：Invalid data",
    ]
    assert str(audio) == "/x/会议.mp3: decoding failed at 12.3 s: Invalid data"  # English stays for logs


def test_stored_rows_of_this_and_older_versions_are_translated(chinese) -> None:
    report = problem_of(AudioError(engine_messages.UNREADABLE, path="a.mp3", reason="EIO"))
    rows = [
        (report.text, report.to_json()),  # this version
        ("decoding failed at 3.0 s: bad", '["decode_failed", "3.0", "bad"]'),  # short codes, before messages
        ("file is empty", None),  # before any codes
        ("something else entirely", None),  # unknown: the English text
        ("odd", '{"code": "audio.unreadable", "fields": {}}'),
    ]  # fields of another version: the text
    shown = [localized_stored(text, code) for text, code in rows]
    print(shown)
    assert shown == ["无法读取（EIO）", "在 3.0 秒处解码失败：bad", "文件是空的", "something else entirely", "odd"]


def _warning_messages() -> list[WarningMessage]:
    return [m for module in CATALOGUES for m in catalogue(module) if isinstance(m, WarningMessage)]


def _sample_fields(message: WarningMessage) -> dict[str, object]:
    """Fields as a warning gets them, none of them English: numbers, a name, our own reason (translated too)."""
    fields: dict[str, object] = {}
    for name, _, spec in placeholders(message.text):
        if spec or name in ("count", "at", "total", "decoded", "ms"):
            fields[name] = 12.5
        elif name == "reason":
            fields[name] = TingjiError(engine_messages.REASON_DAMAGED)
        else:  # a model, a language or a provider as the user or the model names it
            fields[name] = "甲乙"
    return fields


ENGLISH = re.compile(r"[A-Za-z]{2,}")
NOT_ENGLISH = {"CPU"}  # a name, the same in Chinese
COMMAND = re.compile(r"\btingji(?: [\w.-]+)+")  # a command to type (`tingji models download ct-punc-zh`): not prose


def test_every_warning_is_shown_in_chinese_with_no_english_left(chinese) -> None:
    """Each warning code, as the queue shows it (cell and tooltip, also read back from the database) and as
    the status line shows an engine's warnings: no English word remains."""
    model, checked, english = QueueModel(), [], []
    for n, message in enumerate(_warning_messages(), 1):
        report = warning(message, **_sample_fields(message))
        text, code = warning_columns([report])
        model.set_jobs([Job(n, "会议", 1.0, Status.DONE, warning=text, warning_code=code)])
        tooltip = model.data(model.index(0, Column.NAME), Qt.ItemDataRole.ToolTipRole).split("\n", 1)[1]
        shown = [
            localized(report),
            localized_warnings(text, code),
            model.data(model.index(0, Column.PROGRESS)),
            tooltip,
        ]
        words = {w for s in shown for w in ENGLISH.findall(COMMAND.sub("", s))} - NOT_ENGLISH
        checked.append(f"{message.code}: {shown[0]}")
        if words or shown[0] == report.text:
            english.append(f"{message.code}: {sorted(words)} in {shown}")
    print("\n".join(checked))
    assert len(checked) >= 13 and not english, english


def test_stored_warnings_of_this_and_older_versions_are_shown(chinese) -> None:
    stopped = warning(engine_messages.NOT_READ_TO_END)
    rows = [
        warning_columns([stopped, stopped]),  # this version: one translated line per warning
        ("the file could not be read to its end", None),  # before warning codes, a message without fields
        ("decoding stopped at 4.0 s of 9.0 s (the data is damaged)", None),  # before codes: as stored
        ("odd", "not json"),
    ]
    shown = [localized_warnings(text, code) for text, code in rows]
    print(shown)
    assert shown == [
        "文件无法读到末尾；文件无法读到末尾",
        "文件无法读到末尾",
        "decoding stopped at 4.0 s of 9.0 s (the data is damaged)",
        "odd",
    ]
