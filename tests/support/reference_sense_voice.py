"""funasr's own SenseVoiceSmall, the judge of the SenseVoice family (test-only dependency).

Runs the reference exactly as its `inference()` does, with one change: the
front-end's dither is set to 0 (funasr's WavFrontend defaults to 1.0, which
adds random noise to every call, so two runs on the same audio differ).
The CTC log-probabilities its decoding reads are recorded, so a test can
see which frame emitted which token.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from tests.support.quiet import quiet_root_logger


class SenseVoiceReference:
    def __init__(self, checkpoint: Path) -> None:
        from funasr.models.sense_voice.model import SenseVoiceSmall

        with quiet_root_logger():  # funasr logs its progress on the root logger
            self.model, self.kwargs = SenseVoiceSmall.from_pretrained(
                model=str(checkpoint), device="cpu", disable_update=True
            )
        self.model.eval()
        self.kwargs["frontend"].dither = 0.0
        self.tokenizer = self.kwargs["tokenizer"]
        self._log_probs: list[torch.Tensor] = []
        log_softmax = self.model.ctc.log_softmax

        def recording(x: torch.Tensor) -> torch.Tensor:
            out = log_softmax(x)
            self._log_probs.append(out.detach().clone())
            return out

        self.model.ctc.log_softmax = recording

    def run(self, wav: np.ndarray, language: str = "auto", use_itn: bool = False) -> dict:
        """Reference inference: rich text, the best path over [4 query rows + frames], its log-probs."""
        rest = {k: v for k, v in self.kwargs.items() if k not in ("tokenizer", "frontend", "model")}
        rest.update(language=language, use_itn=use_itn)
        self._log_probs.clear()
        with torch.no_grad(), quiet_root_logger():
            results, _ = self.model.inference(
                [torch.from_numpy(np.array(wav, np.float32))],
                key=["clip"],
                tokenizer=self.tokenizer,
                frontend=self.kwargs["frontend"],
                **rest,
            )
        log_probs = self._log_probs[0][0].numpy()
        return {"text": results[0]["text"], "path": log_probs.argmax(-1), "log_probs": log_probs}

    def features(self, wav: np.ndarray) -> np.ndarray:
        """LFR + CMVN features [T, 560], as `inference` computes them."""
        feats, _ = self.kwargs["frontend"](torch.from_numpy(np.array(wav, np.float32))[None], torch.tensor([len(wav)]))
        return feats[0].numpy()

    def piece(self, token: int) -> str:
        return self.tokenizer.sp.id_to_piece(int(token))
