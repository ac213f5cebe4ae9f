"""Every error message is translated in the Chinese UI, by its code, fields and nested errors included."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
from PySide6.QtCore import QCoreApplication, QTranslator  # noqa: E402

from tests.support.paths import APP  # noqa: E402
from tests.test_errors import catalogue_modules  # noqa: E402
from tingji.dictation import messages as dictation_messages  # noqa: E402
from tingji.dictation.hotkey import HotkeyError  # noqa: E402
from tingji.engine import messages as engine_messages  # noqa: E402
from tingji.errors import AudioError, catalogue, placeholders  # noqa: E402
from tingji.gui import i18n  # noqa: E402
from tingji.gui.errors import CATALOGUES, CONTEXT, localized, localized_stored, problem_of  # noqa: E402

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
