"""funasr's own FunASRNano, the judge of correctness (test-only dependency).

Runs the reference exactly as its `inference()` does and records the token
ids its `llm.generate` returns. The CTC forced alignment that follows
generation needs torchaudio, which has no build here; it only produces
timestamps after the tokens are fixed, so it is replaced by a no-op.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from tests.support.quiet import quiet_root_logger


class Reference:
    def __init__(self, checkpoint: Path) -> None:
        import funasr.models.fun_asr_nano.model as nano

        nano.forced_align = lambda *args, **kwargs: []
        with quiet_root_logger():
            self.model, self.kwargs = nano.FunASRNano.from_pretrained(
                model=str(checkpoint), device="cpu", disable_update=True
            )
        self.model.eval()
        self._captured: dict[str, object] = {}
        generate = self.model.llm.generate

        def recording_generate(*args, **kwargs):
            out = generate(*args, **kwargs)
            self._captured["ids"] = out[0].tolist()
            self._captured["embeds"] = kwargs["inputs_embeds"].detach().clone()
            return out

        self.model.llm.generate = recording_generate
        self.eos = self.model.llm.config.eos_token_id

    def run(self, wav: np.ndarray, **options) -> dict:
        """Reference inference on 16 kHz float samples: ids (up to EOS), text, internals."""
        rest = {k: v for k, v in self.kwargs.items() if k not in ("tokenizer", "frontend", "model")}
        rest.update(options)
        with torch.no_grad(), quiet_root_logger():
            results, meta = self.model.inference(
                [torch.from_numpy(np.array(wav, np.float32))],
                key=["clip"],
                tokenizer=self.kwargs["tokenizer"],
                frontend=self.kwargs["frontend"],
                **rest,
            )
        ids = list(self._captured["ids"])
        if self.eos in ids:
            ids = ids[: ids.index(self.eos)]
        return {"ids": ids, "text": results[0]["text"], "meta": meta, "embeds": self._captured["embeds"]}

    def encode(self, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Encoder, adaptor and CTC log-probs for LFR features [T, 560]."""
        x = torch.from_numpy(np.array(feats, np.float32))[None]
        lens = torch.tensor([x.shape[1]])
        with torch.no_grad():
            enc, olens = self.model.audio_encoder(x, lens)
            ada, _ = self.model.audio_adaptor(enc, olens)
            dec, _ = self.model.ctc_decoder(enc, olens)
            logp = self.model.ctc.log_softmax(dec)
        return enc[0].numpy(), ada[0].numpy(), logp[0].numpy()

    def features(self, wav: np.ndarray) -> np.ndarray:
        frontend = self.kwargs["frontend"]
        feats, _ = frontend(torch.from_numpy(np.array(wav, np.float32))[None], torch.tensor([len(wav)]))
        return feats[0].numpy()
