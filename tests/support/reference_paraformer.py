"""funasr's own Paraformer / BiCifParaformer, the judge of the Paraformer family (test-only dependency).

Loaded the way users load it, `funasr.AutoModel(model=DIR)`, and run
exactly as its `inference()` runs, with one change: the front-end's dither
is set to 0 (funasr's WavFrontend defaults to 1.0, which adds random noise
to every call, so two runs on the same audio differ). What the inference
computes on the way is recorded - encoder states, CIF weights and token
count, the acoustic embeddings, the decoder's log-probabilities, the
timestamp head's weights and peaks - so a test can compare every stage.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from tests.support.quiet import quiet_root_logger


class ParaformerReference:
    def __init__(self, checkpoint: Path) -> None:
        from funasr import AutoModel

        with quiet_root_logger():  # funasr logs its progress on the root logger
            auto = AutoModel(model=str(checkpoint), device="cpu", disable_update=True, log_level="ERROR")
        self.model, self.kwargs = auto.model, auto.kwargs
        self.model.eval()
        self.kwargs["frontend"].dither = 0.0
        self.tokenizer = self.kwargs["tokenizer"]
        self.bicif = hasattr(self.model, "calc_predictor_timestamp")
        self._seen: dict[str, tuple] = {}
        self._record("encode")
        self._record("calc_predictor")
        self._record("cal_decoder_with_predictor")
        if self.bicif:
            self._record("calc_predictor_timestamp")

    def _record(self, name: str) -> None:
        original = getattr(self.model, name)

        def recording(*args, **kwargs):
            out = original(*args, **kwargs)
            self._seen[name] = tuple(x.detach().clone() if isinstance(x, torch.Tensor) else x for x in out)
            return out

        setattr(self.model, name, recording)

    def run(self, wav: np.ndarray) -> dict:
        """Reference inference and what it computed on the way (token_num 0: the empty result)."""
        rest = {k: v for k, v in self.kwargs.items() if k not in ("tokenizer", "frontend", "model")}
        self._seen.clear()
        with torch.no_grad(), quiet_root_logger():
            out = self.model.inference(
                [torch.from_numpy(np.array(wav, np.float32))],
                key=["clip"],
                tokenizer=self.tokenizer,
                frontend=self.kwargs["frontend"],
                **rest,
            )
        enc, enc_lens = self._seen["encode"]
        acoustic, token_num, alphas, peaks = self._seen["calc_predictor"]
        found = {
            "enc": enc[0, : int(enc_lens[0])].numpy(),
            "alphas": alphas[0].numpy(),  # with the 0.45 tail frame
            "peaks": peaks[0].numpy(),
            "token_num": int(token_num[0].round()),
            "acoustic": acoustic[0].numpy(),
        }
        if not out:  # inference returns [] when no token fires
            return {**found, "ids": [], "tokens": [], "text": "", "timestamps": [], "log_probs": None}
        results, _ = out
        log_probs = self._seen["cal_decoder_with_predictor"][0][0, : found["token_num"]].numpy()
        ids = [int(i) for i in log_probs.argmax(-1) if int(i) not in (0, 1, 2)]  # blank, <s>, </s>
        found.update(
            log_probs=log_probs,
            ids=ids,
            tokens=self.tokenizer.ids2tokens(ids),
            text=results[0]["text"],
            timestamps=[list(t) for t in results[0].get("timestamp", [])],
        )
        if self.bicif:
            _, _, us_alphas, us_peaks = self._seen["calc_predictor_timestamp"]
            found.update(us_alphas=us_alphas[0].numpy(), us_peaks=us_peaks[0].numpy())
        return found

    def features(self, wav: np.ndarray) -> np.ndarray:
        """LFR + CMVN features [T, 560], as `inference` computes them."""
        feats, _ = self.kwargs["frontend"](torch.from_numpy(np.array(wav, np.float32))[None], torch.tensor([len(wav)]))
        return feats[0].numpy()
