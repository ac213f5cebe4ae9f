"""funasr's own CTTransformer, the judge of Tingji's punctuation (test-only dependency).

Loaded as users load it, `funasr.AutoModel(model=DIR)`, and run as its
`inference()` runs on a text; funasr's AutoModel puts the marks back into
the recogniser's own text with `_punctuate_surface_text`, which is returned
beside it.
"""

from __future__ import annotations

from pathlib import Path

import torch

from tests.support.quiet import quiet_root_logger


class PunctuationReference:
    def __init__(self, checkpoint: Path) -> None:
        from funasr import AutoModel

        with quiet_root_logger():
            auto = AutoModel(model=str(checkpoint), device="cpu", disable_update=True, disable_pbar=True)
        self.model, self.kwargs = auto.model, auto.kwargs
        self.model.eval()

    def run(self, text: str) -> dict:
        """funasr's punctuated text, its mark per word (`punc_array`), and the marks put into `text`."""
        from funasr.auto.auto_model import _punctuate_surface_text

        rest = {k: v for k, v in self.kwargs.items() if k not in ("tokenizer", "frontend", "model")}
        with torch.no_grad(), quiet_root_logger():
            results, _ = self.model.inference([text], key=["text"], tokenizer=self.kwargs["tokenizer"], **rest)
        marks = results[0]["punc_array"]
        marks = [] if marks is None else [int(m) for m in marks]
        surface = _punctuate_surface_text(text, marks, self.model) if marks else text
        return {"text": results[0]["text"], "marks": marks, "surface": surface}
