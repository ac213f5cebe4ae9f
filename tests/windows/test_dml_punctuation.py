"""Proof 2 of issue 47: the punctuation model on DirectML under Wine runs on the shared session layer, and a
NaN from it is a coded error.

The tiny CT-Transformer (the `punc_model` fixture) and a copy whose token embedding row for one character
is NaN (tests/support/faults.py) are loaded in one Wine process the way the engine loads a companion
(`Punctuator` with the engine's `LoadOptions(provider="dml")`). The healthy model's session must list
DirectML first and mark both texts as the Linux CPU does; the poisoned one must mark text without that
character the same, and give `engine.not_finite` on DirectML for text with it: one line, no traceback, no
fallback to the CPU behind the user's back.
"""

from __future__ import annotations

import json
import time

from tests.support.faults import poison_punctuation
from tingji.engine.punctuation import Punctuator

from .conftest import PROBES

TEXTS = {"clean": "我们一起去学校吧", "dirty": "今天天气很好我们一起去学校吧"}


def test_punctuation_on_directml_goes_through_the_shared_layer_and_a_nan_is_a_coded_error(
    punc_model, windows_python, tmp_path
):
    poisoned = poison_punctuation(punc_model, tmp_path / "poisoned", "天")
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps(TEXTS, ensure_ascii=False), encoding="utf-8")
    linux = Punctuator(punc_model, provider="cpu")
    want = {k: linux.punctuate(v).marks for k, v in TEXTS.items()}

    start = time.perf_counter()
    proc = windows_python(PROBES / "punc_nan.py", punc_model, poisoned, texts)
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    print(
        f"punctuation on {report['providers']} ({report['device']}), sessions {report['sessions']};"
        f" marks {report['healthy']} (Linux CPU {want}); poisoned: {report.get('error')}; Wine process {seconds:.1f} s"
    )
    assert report["providers"] == ["dml", "dml"] and not report["warnings"]
    assert all(s[0] == "DmlExecutionProvider" for s in report["sessions"]), report["sessions"]
    assert report["healthy"] == want and report["poisoned_clean"] == want["clean"]
    error = report.get("error")
    assert error is not None, report.get("poisoned_dirty")
    assert error["code"] == "engine.not_finite" and "\n" not in error["text"]
    assert error["fields"]["role"] == "punc" and error["fields"]["provider"] == "DML"
    assert report["provider_after"] == "dml"  # a fault in the model is not a GPU failure: no CPU fallback
