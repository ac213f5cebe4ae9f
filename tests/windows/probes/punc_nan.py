"""The punctuation model on DirectML, as the engine loads it, and a NaN inside it.

usage: python punc_nan.py HEALTHY_MODEL POISONED_MODEL TEXTS.json
TEXTS.json holds {"clean": ..., "dirty": ...}: the poisoned model's NaN row is a token of "dirty" only.
Loads both models through `Punctuator` with `LoadOptions(provider="dml")` (the shared session layer),
prints one JSON line: where each ran, the healthy model's marks on both texts, the poisoned model's marks
on the clean text, and the coded error it gives on the dirty one.
"""

import json
import sys
from pathlib import Path

from tingji.engine.options import LoadOptions
from tingji.engine.punctuation import Punctuator
from tingji.errors import TingjiError


def main(healthy: str, poisoned: str, texts: str) -> None:
    said = json.loads(Path(texts).read_text(encoding="utf-8"))
    options = LoadOptions(provider="dml")
    good, bad = Punctuator(healthy, options), Punctuator(poisoned, options, check_hashes=False)
    report = {
        "providers": [good.provider, bad.provider],
        "device": good.device,
        "sessions": [p.graphs.session("punc").get_providers() for p in (good, bad)],
        "warnings": [w.text for w in good.warnings + bad.warnings],
        "healthy": {k: good.punctuate(v).marks for k, v in said.items()},
        "poisoned_clean": bad.punctuate(said["clean"]).marks,
    }
    try:
        report["poisoned_dirty"] = bad.punctuate(said["dirty"]).marks
    except TingjiError as exc:
        report["error"] = {"code": exc.code, "text": str(exc), "fields": exc.report().fields}
    report["provider_after"] = bad.provider
    print(json.dumps(report, ensure_ascii=True))


if __name__ == "__main__":
    main(*sys.argv[1:])
