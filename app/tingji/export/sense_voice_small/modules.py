"""SenseVoice-Small in PyTorch: query rows, the shared SAN-M encoder, the CTC head.

The parameter names are those of the official `model.pt` (`embed.weight`,
`encoder.*`, `ctc.ctc_lo.*`), so its state dict loads with `strict=True`.

What the graph computes follows funasr's `SenseVoiceSmall.inference`: four
rows looked up in the `embed` table - language, event (row 1), emotion (row
2), text normalisation - are put in front of the (CMVN-normalised) LFR
features *before* the encoder scales its input and adds positions, so they
are scaled and positioned like audio frames 0-3. The CTC head's log-softmax
over those four rows carries the language/emotion/event/ITN tags, and over
the rest the text.

Export-specific choices: the query ids are a graph input (one graph for
every language and ITN choice); the output is split into the four query
rows and the frame rows, so the frame rows line up one to one with the
input frames and pad like them; only the best token and its log-probability
leave the graph, computed as max - logsumexp over the logits (greedy CTC
needs nothing else, and a 25055-way log-softmax per 60 ms frame would be a
second ~50 MB buffer per 30 s window, plus a top-k pass over it).
"""

from __future__ import annotations

import torch
from torch import nn

from ..layers import CtcProjection, masks
from ..sanm import SanmEncoder
from .dims import SenseVoiceDims

N_QUERIES = 4  # language, event, emotion, text normalisation


class SenseVoiceGraph(nn.Module):
    """(speech [B,T,D], mask [B,T], query [B,4] int64) -> best CTC log-prob and id per query row and frame.

    Both outputs are [..., 1].
    """

    def __init__(self, d: SenseVoiceDims) -> None:
        super().__init__()
        self.embed = nn.Embedding(d.query_rows, d.input_size)
        self.encoder = SanmEncoder(d)
        self.ctc = CtcProjection(d.encoder_dim, d.vocab)

    def forward(
        self, speech: torch.Tensor, mask: torch.Tensor, query: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        # The query rows are always valid: their mask is ones shaped like the ids (no slicing of `mask`,
        # which may be shorter than four frames).
        full_mask = torch.cat([torch.ones_like(query, dtype=mask.dtype), mask], dim=1)
        keep, bias = masks(full_mask, speech.dtype)
        x = torch.cat([self.embed(query).to(speech.dtype), speech * keep[:, N_QUERIES:]], dim=1)
        enc = self.encoder(x, keep, bias) * keep
        logits = self.ctc.ctc_lo(enc).float()
        best, ids = logits.max(dim=-1, keepdim=True)
        values = best - torch.logsumexp(logits, dim=-1, keepdim=True)  # the log-softmax at the best token
        return values[:, :N_QUERIES], ids[:, :N_QUERIES], values[:, N_QUERIES:], ids[:, N_QUERIES:]
