"""Qwen3-ASR's audio-tower sizes, without torch (`modules` builds the tower from them)."""

from __future__ import annotations

from dataclasses import dataclass

CONV_PARTS = 32  # slices the chunk batch is convolved in (peak memory; see modules.AudioTower.forward)


@dataclass(frozen=True)
class EncoderDims:
    """The sizes of a Qwen3-ASR audio tower (the checkpoint's `thinker_config.audio_config`)."""

    n_mels: int = 128
    d_model: int = 896
    layers: int = 18
    heads: int = 14
    ffn: int = 3584
    conv_channels: int = 480  # downsample_hidden_size
    output_dim: int = 1024  # the LLM's hidden size
    chunk_frames: int = 100  # 2 * n_window
    window_chunks: int = 8  # n_window_infer // chunk_frames

    @property
    def chunk_tokens(self) -> int:
        """Tokens per full chunk: three stride-2 convolutions (13 for 100 frames)."""
        return -(-self.chunk_frames // 8)

    @property
    def freq_bins(self) -> int:
        n = self.n_mels
        for _ in range(3):
            n = (n + 1) // 2
        return n


def tower_tensors(dims: EncoderDims) -> set[str]:
    """The names `modules.AudioTower(dims)` loads (its state dict), under the checkpoint's audio prefix."""
    names = {f"conv2d{i}.{p}" for i in (1, 2, 3) for p in ("weight", "bias")}
    names.add("conv_out.weight")
    for i in range(dims.layers):
        parts = [f"self_attn.{p}_proj" for p in ("q", "k", "v", "out")]
        parts += ["self_attn_layer_norm", "fc1", "fc2", "final_layer_norm"]
        names |= {f"layers.{i}.{part}.{p}" for part in parts for p in ("weight", "bias")}
    names |= {f"{m}.{p}" for m in ("ln_post", "proj1", "proj2") for p in ("weight", "bias")}
    return names
