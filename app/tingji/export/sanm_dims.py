"""The sizes of a funasr SAN-M encoder, read from a release's config without torch (`sanm` builds it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SanmDims:
    """The sizes of a SenseVoiceEncoderSmall (read from a checkpoint's config.yaml)."""

    input_size: int = 560
    encoder_dim: int = 512
    encoder_heads: int = 4
    encoder_ffn: int = 2048
    encoder_blocks: int = 50  # encoders0 (1) + encoders (blocks - 1)
    tp_blocks: int = 20
    kernel_size: int = 11
    sanm_shift: int = 0
    norm_eps: float = 1e-5  # SenseVoiceEncoderSmall: torch's default; SANMEncoder (Paraformer): 1e-12


#: SanmDims fields and the funasr `encoder_conf` keys they are read from (funasr spells it `sanm_shfit`).
ENCODER_CONF_KEYS = {
    "encoder_dim": "output_size",
    "encoder_heads": "attention_heads",
    "encoder_ffn": "linear_units",
    "encoder_blocks": "num_blocks",
    "kernel_size": "kernel_size",
    "sanm_shift": "sanm_shfit",
}


def encoder_sizes(
    conf: Mapping[str, Any], defaults: SanmDims, read: Callable[[str, int], int] | None = None
) -> dict[str, int]:
    """The SAN-M encoder's sizes in a funasr `encoder_conf`, as `SanmDims` keywords (`tp_blocks` aside).

    Args:
        conf: the checkpoint config's `encoder_conf`.
        defaults: the family's own sizes, for keys the conf leaves out.
        read: (key, default) -> the conf's whole number, where a family checks it; None: `int()` of it.
    """
    get = read or (lambda key, default: int(conf.get(key, default)))
    return {field: get(key, getattr(defaults, field)) for field, key in ENCODER_CONF_KEYS.items()}
