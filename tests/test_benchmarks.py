"""benchmarks/run.py stays runnable: a --quick run writes every key, finite and positive.

No timing is asserted (CI machines differ and are shared); the full-size
numbers live in benchmarks/results/latest.json.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from tests.support.paths import ROOT

REQUIRED = ("speedup_vs_funasr_e2e", "dictation_latency_3s_s", "encoder_fraction_of_gemm_limit",
            "decoder_fraction_of_bandwidth_limit", "rtf_5min", "peak_rss_mb", "time_to_first_result_s",
            "int8_max_rel_error_vs_fp32")


def _positive(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


@pytest.mark.slow
def test_quick_run_writes_all_keys(tmp_path):
    results = tmp_path / "results"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick",
                           "--cache-dir", str(tmp_path / "cache"), "--results-dir", str(results)],
                          cwd=ROOT, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads((results / "latest.json").read_text())
    for key in REQUIRED:
        assert _positive(doc.get(key)), (key, doc.get(key))
    assert doc["quick"] is True
    # What the numbers came from: the CPU, its int8-relevant instruction sets, the int8 kernel that ran.
    m = doc["machine"]
    assert m["cpu"] and set(m["isa"]) == {"avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx"}
    assert m["int8_kernel"] in ("int32", "int16-pairs") and doc["summary"]["encoder_int8_kernel"] == m["int8_kernel"]
    assert doc["int8_max_rel_error_vs_fp32"] < 0.1  # the tests' bound, on this run's own exports
    assert set(doc["goals"]) <= set(doc)
    s = doc["summary"]
    for key in ("rtf_5min_fp32_f16", "rtf_5min_funasr", "load_and_warm_s", "gemm_limit_gflops",
                "bandwidth_limit_gbs", "encoder_fp32_60s_s", "encoder_int8_60s_s", "encoder_funasr_60s_s"):
        assert _positive(s[key]), (key, s[key])
    for quant in ("f16", "q8_0", "q5_k"):
        assert _positive(s["decoder_gen_tok_s"][quant]) and _positive(s["decoder_prefill_tok_s"][quant])
    r = doc["results"]
    for prec in ("fp32", "int8"):
        for case in ("3s_real", "3s_bucket", "10s_real", "10s_bucket", "60s_real", "60s_fixed"):
            assert _positive(r["encoder"][prec][case]["median_s"]), (prec, case)
    # Work-matched runs really generated the same number of tokens in both systems.
    assert r["tingji"]["e2e_budget"]["tokens_total"] == r["funasr"]["e2e"]["tokens_total"]
    for name, e in doc["exports"].items():
        assert _positive(e["wall_s"]) and _positive(e["peak_rss_mb"]) and _positive(e["decoder_bytes"]), name
    md = (results / "latest.md").read_text()
    assert "| speedup_vs_funasr_e2e |" in md
    # SenseVoice-Small beside Nano; the sherpa-onnx peer is optional and says so when skipped.
    for key in ("sensevoice_dictation_3s_s", "sensevoice_encoder_30s_s", "sensevoice_60s_s", "sensevoice_peak_rss_mb",
                "sensevoice_speedup_vs_funasr_3s", "peak_rss_two_models_mb"):
        assert _positive(s[key]), (key, s.get(key))
    assert "## SenseVoice-Small" in md
    try:
        import sherpa_onnx  # noqa: F401
    except ImportError:
        assert "sherpa-onnx skipped" in md
    else:
        assert _positive(s["sensevoice_speedup_vs_sherpa_3s"]) and _positive(s["sensevoice_speedup_vs_sherpa_60s"])
    # Qwen3-ASR, both sizes, against transformers with the same forced budget.
    for size in ("0_6b", "1_7b"):
        for name in ("speedup_vs_reference_e2e", "peak_rss_mb", "prefill_60s_fraction_of_llama_batch",
                     "dictation_3s_vs_nano", "gen_vs_nano_same_positions", "encoder_60s_s", "gen_tok_s"):
            assert _positive(doc.get(f"qwen3_asr_{size}_{name}")), (size, name)
    for size, q in r["qwen3_asr"].items():
        assert q["tingji"]["e2e"]["tokens_total"] == q["reference"]["e2e"]["tokens_total"], size
    assert "## Qwen3-ASR" in md and "| qwen3_asr_0_6b_speedup_vs_reference_e2e |" in md


def test_encoder_flop_count_matches_torch():
    """The architecture count in benchmarks/flops.py against torch's FlopCounterMode on the module."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from flops import encoder_flops
    from tingji.export.fun_asr_nano.modules import AudioDims, EncoderGraph

    dims = AudioDims(encoder_dim=64, encoder_heads=4, encoder_ffn=128, encoder_blocks=3, tp_blocks=2,
                     llm_dim=96, adaptor_ffn=128, adaptor_layers=2, adaptor_heads=4, ctc_vocab=0)
    model = EncoderGraph(dims).eval()
    t = 50
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(torch.randn(1, t, dims.input_size), torch.ones(1, t))
    counted = counter.get_total_flops()
    ours = encoder_flops(dims, t)["total"]
    assert abs(ours - counted) / counted < 0.02, (ours, counted)


def test_decoder_bytes_per_token_counts_every_tensor(tmp_path):
    """Bytes per token = all GGUF tensor bytes + the KV cache at that position."""
    import numpy as np
    import gguf

    from flops import decoder_bytes_per_token

    path = tmp_path / "t.gguf"
    w = gguf.GGUFWriter(str(path), "qwen3")
    w.add_block_count(2)
    w.add_head_count_kv(2)
    w.add_key_length(8)
    w.add_tensor("token_embd.weight", np.zeros((100, 16), np.float16))
    w.add_tensor("blk.0.attn_q.weight", np.zeros((16, 16), np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    b = decoder_bytes_per_token(path, position=10)
    assert b["weight_bytes"] == 100 * 16 * 2 + 16 * 16 * 4
    assert b["kv_bytes"] == 2 * 2 * 2 * 8 * 2 * 10
