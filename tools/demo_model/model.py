"""The demo model and its starting point: official parameter names, so the state dict *is* model.pt.

Besides building the modules: the FSMN convolutions done by FFT for training (`use_fft_fsmn`), the
hand-made position code and packing attention that training starts from (`positional_init`,
`packing_init`), and the CTC outputs no target uses pinned far below (`pin_unused_ctc`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .data import N_TAGS
from .recipe import AUDIO_ROWS_PER_FRAME, Dims

if TYPE_CHECKING:
    from .text import TextSide

SCAFFOLDING = ("frame_head.", "pack_head.")


def build_model(dims: Dims, ctc_vocab: int, llm_config: dict):
    """Encoder, adaptor, CTC head and Qwen3 under the release's top-level names.

    `frame_head` and `pack_head` are training scaffolding (see
    `forward_losses`); they are not part of Fun-ASR-Nano and are dropped from
    the saved checkpoint.
    """
    from torch import nn
    from transformers import Qwen3Config, Qwen3ForCausalLM

    from tingji.export.fun_asr_nano.modules import Adaptor
    from tingji.export.layers import CtcProjection
    from tingji.export.sanm import SanmEncoder

    audio = audio_dims(dims, ctc_vocab)

    class DemoNano(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.audio_encoder = SanmEncoder(audio)
            self.audio_adaptor = Adaptor(
                audio.encoder_dim, audio.adaptor_ffn, audio.llm_dim, audio.adaptor_layers, audio.adaptor_heads
            )
            self.ctc_decoder = Adaptor(
                audio.encoder_dim, audio.ctc_ffn, audio.encoder_dim, audio.ctc_layers, audio.ctc_heads
            )
            self.ctc = CtcProjection(audio.encoder_dim, audio.ctc_vocab)
            cfg = {
                k: v for k, v in llm_config.items() if k not in ("architectures", "transformers_version", "torch_dtype")
            }
            self.llm = Qwen3ForCausalLM(Qwen3Config(**cfg))
            self.frame_head = nn.Linear(audio.encoder_dim, N_TAGS)
            self.pack_head = nn.Linear(audio.llm_dim, AUDIO_ROWS_PER_FRAME * N_TAGS)

    return DemoNano()


def fft_fsmn_module(conv, left: int):
    """A drop-in for an FSMN `nn.Conv1d` (depthwise, no bias) that convolves by FFT.

    Same parameter (`weight`, so the state dict is unchanged) and the same
    result as `conv(F.pad(x, (left, right)))`, but for a 1101-tap kernel the
    direct convolution costs more than the rest of the encoder; by FFT it is
    nearly free. Only training uses it; the export uses the plain Conv1d.
    """
    import torch
    from torch import nn

    class FftConv(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = conv.weight  # [C, 1, K]
            self.left = left

        def forward(self, padded: torch.Tensor) -> torch.Tensor:
            k = self.weight.shape[-1]
            t = padded.shape[-1] - (k - 1)
            x = padded[..., self.left : self.left + t]  # the unpadded signal (padding is zeros)
            n = t + k - 1
            n += (-n) % 64
            kernel = torch.flip(self.weight[:, 0, :], dims=[-1])
            full = torch.fft.irfft(torch.fft.rfft(x, n) * torch.fft.rfft(kernel, n), n)
            # full[m] = sum_j x[j] w[k-1-(m-j)]; output t' needs m = t' + k - 1 - left
            start = k - 1 - self.left
            return full[..., start : start + t]

    return FftConv()


def use_fft_fsmn(model) -> None:
    """Swap every encoder FSMN convolution for its FFT twin (training speed only)."""
    for stack in (model.audio_encoder.encoders0, model.audio_encoder.encoders, model.audio_encoder.tp_encoders):
        for layer in stack:
            attn = layer.self_attn
            attn.fsmn_block = fft_fsmn_module(attn.fsmn_block, attn.pad[0])


# Sinusoid frequencies (radians per 60 ms frame) of the position code. Frames
# are found by KEY_FREQS (periods of 12.6 to 1600 frames); row i of the adaptor
# looks for frame 8i with the same sinusoids at 8x the frequency, so the code
# holds both sets (aliasing above pi is harmless on integer frame numbers).
KEY_FREQS = [0.5 / 2**m for m in range(8)]
POSITION_FREQS = sorted({*KEY_FREQS, *(AUDIO_ROWS_PER_FRAME * w for w in KEY_FREQS)}, reverse=True)


# The code is written large: every LayerNorm on the way subtracts the frame's
# mean over all channels, and at this size the content's share of that mean
# stays small next to the code.
POSITION_AMPLITUDE = 10.0


def position_channel(freq: float, fn: str) -> int:
    """Which encoder/adaptor channel holds sin or cos of `freq` (see `positional_init`)."""
    return 2 * POSITION_FREQS.index(freq) + (0 if fn == "sin" else 1)


def positional_init(model) -> None:
    """Start the first encoder layer with an exact position code in a few channels.

    The reference layout gives the LLM only the first ceil(T/8) adaptor rows,
    so the adaptor must move frames 8i..8i+7 into row i: it needs to know
    where each frame is. SenseVoice adds sinusoids to the input, but next to
    sqrt(d)-scaled log-mel features they are a ~3% ripple: a linear probe on
    our training data recovers nothing of them (R^2 ~ 0), and a 5-layer model
    trained for minutes does not learn to either. A window-long FSMN kernel
    gives the position exactly instead: for a channel whose value v is 1 on
    every frame, the FSMN output at frame t is the sum of the taps reaching
    back to the first frame, so taps u_d = g(d) - g(d-1) make it g(t). Here
    g runs over sin/cos of POSITION_FREQS, in the first 2*len(freqs) channels
    (value projection: weight 0, bias 1; output projection: 0, so only the
    FSMN memory writes them; the later layers' residuals carry them on).
    Training is free to change all of it.
    """
    import torch

    enc = model.audio_encoder
    attn = enc.encoders0[0].self_attn
    dim = attn.heads * attn.d_k
    k = attn.fsmn_block.weight.shape[-1]
    left = attn.pad[0]
    d = np.arange(-1, left + 1)
    with torch.no_grad():
        # All channels: local taps only (like the release's 11), the long reach starts at zero.
        for stack in (enc.encoders0, enc.encoders, enc.tp_encoders):
            for layer in stack:
                w = layer.self_attn.fsmn_block.weight
                local = torch.zeros_like(w)
                centre = layer.self_attn.pad[0]
                local[:, :, centre - 5 : centre + 6] = w[:, :, centre - 5 : centre + 6] * (k / 11) ** 0.5
                w.copy_(local)
        channel = 0
        for freq in POSITION_FREQS:
            for fn in (np.sin, np.cos):
                g = fn(freq * d.astype(np.float64))
                g[0] = 0.0  # g(-1) = 0: nothing before the first frame
                taps = np.zeros(k)
                taps[left - np.arange(0, left + 1)] = POSITION_AMPLITUDE * np.diff(g)  # tap left - d holds u_d
                attn.fsmn_block.weight[channel, 0] = torch.from_numpy(taps).float()
                attn.linear_q_k_v.weight[2 * dim + channel] = 0.0
                attn.linear_q_k_v.bias[2 * dim + channel] = 1.0
                attn.linear_out.weight[channel] = 0.0
                attn.linear_out.bias[channel] = -1.0  # cancels the FSMN's "+ v" term
                channel += 1
        # Nothing else writes those channels at first, so they reach the output clean.
        n = channel
        enc.encoders0[0].feed_forward.w_2.weight[:n] = 0.0
        enc.encoders0[0].feed_forward.w_2.bias[:n] = 0.0
        for stack in (enc.encoders, enc.tp_encoders):
            for layer in stack:
                for linear in (layer.self_attn.linear_out, layer.feed_forward.w_2):
                    linear.weight[:n] = 0.0
                    linear.bias[:n] = 0.0


def packing_init(model, sharpness: float = 8.0) -> None:
    """Start the adaptor's first attention layer gathering frames 8i..8i+7 into row i.

    The adaptor's Linear-ReLU-Linear passes the position code through (as
    +x and -x halves around the ReLU) and shrinks the rest, so the rows'
    residual carries little of their own frame. In the first transformer
    layer, head h of row i attends by position alone to frames around
    8i + 2h + 0.5: query sin/cos(8w i + w c), key sin/cos(w j), dot product
    sum_w cos(w (8i + c - j)), largest at j = 8i + c. The four heads together
    give row i the content of its eight frames, in order. That is the packing
    the reference's layout asks for; training then refines it (the packing
    loss keeps asking for it) and the LLM learns to read it.
    """
    import torch

    ada = model.audio_adaptor
    n = 2 * len(POSITION_FREQS)
    with torch.no_grad():
        ada.linear1.weight[: 2 * n] = 0.0
        ada.linear1.bias[: 2 * n] = 0.0
        ada.linear2.weight[:, : 2 * n] = 0.0
        ada.linear2.weight[n:] *= 0.1
        ada.linear2.bias[n:] *= 0.1
        ada.linear2.weight[:n] = 0.0
        ada.linear2.bias[:n] = 0.0
        for c in range(n):
            ada.linear1.weight[c, c] = 1.0
            ada.linear1.weight[n + c, c] = -1.0
            ada.linear2.weight[c, c] = 1.0
            ada.linear2.weight[c, n + c] = -1.0
        attn = ada.blocks[0].self_attn
        d_k = attn.d_k
        attn.linear_q.weight.zero_()
        attn.linear_q.bias.zero_()
        attn.linear_k.weight.zero_()
        attn.linear_k.bias.zero_()
        # LayerNorm makes the code's amplitude ~1/std of the row; measured std ~0.5 at init.
        scale = sharpness * d_k**0.5 / len(KEY_FREQS) * 0.25
        for h in range(attn.heads):
            centre = 2 * h + 0.5
            for p, w in enumerate(KEY_FREQS):
                qc, qs = h * d_k + 2 * p, h * d_k + 2 * p + 1
                w8 = AUDIO_ROWS_PER_FRAME * w
                cos_c, sin_c = math.cos(w * centre), math.sin(w * centre)
                # q = rotation of (cos 8wi, sin 8wi) by w*centre
                attn.linear_q.weight[qc, position_channel(w8, "cos")] = scale * cos_c
                attn.linear_q.weight[qc, position_channel(w8, "sin")] = -scale * sin_c
                attn.linear_q.weight[qs, position_channel(w8, "sin")] = scale * cos_c
                attn.linear_q.weight[qs, position_channel(w8, "cos")] = scale * sin_c
                attn.linear_k.weight[qc, position_channel(w, "cos")] = 1.0
                attn.linear_k.weight[qs, position_channel(w, "sin")] = 1.0


def audio_dims(dims: Dims, ctc_vocab: int):
    from tingji.export.fun_asr_nano.dims import AudioDims

    return AudioDims(
        encoder_dim=dims.encoder_dim,
        encoder_heads=dims.encoder_heads,
        encoder_ffn=dims.encoder_ffn,
        encoder_blocks=dims.encoder_blocks,
        tp_blocks=dims.tp_blocks,
        kernel_size=dims.kernel_size,
        sanm_shift=dims.sanm_shift,
        llm_dim=dims.llm_hidden,
        adaptor_ffn=dims.adaptor_ffn,
        adaptor_layers=dims.adaptor_layers,
        adaptor_heads=dims.adaptor_heads,
        ctc_layers=dims.ctc_layers,
        ctc_ffn=dims.ctc_ffn,
        ctc_heads=dims.ctc_heads,
        ctc_vocab=ctc_vocab,
    )


def llm_config_for(tok, dims: Dims) -> dict:
    import make_tiny_checkpoint as mtc

    cfg = mtc.llm_config(tok, full_size=False)
    cfg.update(
        hidden_size=dims.llm_hidden,
        intermediate_size=dims.llm_ffn,
        num_hidden_layers=dims.llm_layers,
        num_attention_heads=dims.llm_heads,
        num_key_value_heads=dims.llm_kv_heads,
        head_dim=dims.llm_head_dim,
        max_window_layers=dims.llm_layers,
        torch_dtype="float32",
    )
    return cfg


UNUSED_LOGIT = -30.0


def pin_unused_ctc(model, side: TextSide) -> None:
    """CTC outputs that no target ever uses: zero weights and a bias of -30.

    That is where training with the full softmax would push them anyway (they
    are never a target), and fixing it up front lets training compute logits
    for the ~40 ids that occur instead of all ~2,700 rows of the release's
    CTC vocabulary. The exported head keeps its full, official shape.
    """
    import torch

    unused = torch.ones(model.ctc.ctc_lo.out_features, dtype=torch.bool)
    unused[side.pack_ids] = False
    with torch.no_grad():
        model.ctc.ctc_lo.weight[unused] = 0.0
        model.ctc.ctc_lo.bias[unused] = UNUSED_LOGIT
