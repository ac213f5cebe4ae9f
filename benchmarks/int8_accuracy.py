"""How far the int8 encoder is from the fp32 one at full size, on this CPU's int8 kernel.

The tests check the tiny model on both kernel paths (tests/support/cpu_paths.py);
this stage gives the full-size figure, `int8_max_rel_error_vs_fp32`: the
encoder + adaptor of both exports on the benchmark's speech, windows of the
app's length, compared as the tests compare them (largest |int8 - fp32| over
the largest |fp32|; the CTC head's best token per frame and its collapsed
path). Runs as a child stage of run.py.
"""

from __future__ import annotations

import gc
import time
from typing import Any

import numpy as np
from common import int8_kernel, vm_hwm_mb

SAMPLE_RATE = 16000


def _encode_all(model: str, feats: list[np.ndarray]) -> tuple[list[Any], list[np.ndarray], float]:
    """Encoder outputs and the CTC head's best token per frame for each window, and the encode seconds."""
    from tingji.engine.families.fun_asr_nano.encoder import NanoEncoder
    from tingji.engine.manifest import load_manifest
    from tingji.engine.options import LoadOptions

    enc = NanoEncoder(load_manifest(model), LoadOptions(provider="cpu", policy="dynamic"))
    outs, best, seconds = [], [], 0.0
    for f in feats:
        t = time.perf_counter()
        out = enc.encode(f)
        seconds += time.perf_counter() - t
        outs.append(out)
        best.append(enc.ctc(out.enc)[1][:, 0] if enc.has_ctc else np.zeros(0, np.int64))
    del enc
    gc.collect()
    return outs, best, seconds


def int8_accuracy(a: dict[str, Any]) -> dict[str, Any]:
    """int8 vs fp32 encoder, adaptor and CTC head on up to `windows` windows of `window_s` seconds."""
    import soundfile as sf

    from tests.support.int8_checks import ctc_agreement, rel_error
    from tingji.engine.frontend import features
    from tingji.engine.manifest import load_manifest

    audio, sr = sf.read(a["audio"], dtype="float32")
    assert sr == SAMPLE_RATE
    step = int(a["window_s"] * SAMPLE_RATE)
    starts = range(0, max(1, len(audio) - SAMPLE_RATE), step)[: a["windows"]]
    feats = [features(audio[s : s + step]) for s in starts]
    ref, ref_best, fp32_s = _encode_all(a["fp32_model"], feats)
    got, got_best, int8_s = _encode_all(a["int8_model"], feats)
    blank = load_manifest(a["fp32_model"]).section.ctc.blank_id
    windows = []
    for i, (r, g, rb, gb) in enumerate(zip(ref, got, ref_best, got_best)):
        ctc = ctc_agreement(gb, rb, blank) if len(rb) else None
        windows.append(
            {
                "start_s": starts[i] / SAMPLE_RATE,
                "frames": r.frames,
                "adaptor_rel_error": rel_error(g.adaptor, r.adaptor),
                "encoder_rel_error": rel_error(g.enc, r.enc),
                "ctc_frame_agreement": ctc.frames if ctc else None,
                "ctc_path_edit_rate": ctc.edit_rate if ctc else None,
            }
        )
    return {
        "int8_kernel": int8_kernel(),
        "windows": windows,
        "max_rel_error": max(max(w["adaptor_rel_error"], w["encoder_rel_error"]) for w in windows),
        "min_ctc_frame_agreement": min(
            (w["ctc_frame_agreement"] for w in windows if w["ctc_frame_agreement"] is not None), default=None
        ),
        "encode_s": {"fp32": round(fp32_s, 3), "int8": round(int8_s, 3)},
        "peak_rss_mb": round(vm_hwm_mb(), 1),
    }


STAGES = {"int8_accuracy": int8_accuracy}
