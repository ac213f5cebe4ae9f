"""benchmarks/run.py stays runnable: a --quick run writes every key, finite and positive.

No timing is asserted (CI machines differ and are shared); the full-size
numbers live in benchmarks/results/latest.json.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest

from tests.support.paths import ROOT

REQUIRED = (
    "speedup_vs_funasr_e2e",
    "dictation_latency_3s_s",
    "encoder_fraction_of_gemm_limit",
    "decoder_fraction_of_bandwidth_limit",
    "rtf_5min",
    "peak_rss_mb",
    "time_to_first_result_s",
    "int8_max_rel_error_vs_fp32",
)


def _positive(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


@pytest.mark.slow
@pytest.mark.timeout(3700)  # a bound on a hang: on 2 cores beside other jobs the run took over 15 minutes
def test_quick_run_writes_all_keys(tmp_path):
    results = tmp_path / "results"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--results-dir",
            str(results),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
    )
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
    for key in (
        "rtf_5min_fp32_f16",
        "rtf_5min_funasr",
        "load_and_warm_s",
        "gemm_limit_gflops",
        "bandwidth_limit_gbs",
        "encoder_fp32_60s_s",
        "encoder_int8_60s_s",
        "encoder_funasr_60s_s",
    ):
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
    for key in (
        "sensevoice_dictation_3s_s",
        "sensevoice_encoder_30s_s",
        "sensevoice_60s_s",
        "sensevoice_peak_rss_mb",
        "sensevoice_speedup_vs_funasr_3s",
        "peak_rss_two_models_mb",
    ):
        assert _positive(s[key]), (key, s.get(key))
    assert "## SenseVoice-Small" in md
    # Paraformer-zh with its punctuation companion (issue 36); sherpa-onnx optional as above.
    for key in (
        "paraformer_60s_s",
        "paraformer_3s_s",
        "paraformer_speedup_vs_funasr_60s",
        "paraformer_peak_rss_mb",
        "punctuation_share_of_file",
    ):
        assert _positive(doc.get(key)), (key, doc.get(key))
    assert doc["punctuation_share_of_file"] < 1 and r["paraformer"]["file"]["punctuation_loaded"]
    # The encoder's arithmetic at the machine's best GEMM speed is a floor no run can go under.
    assert _positive(doc.get("paraformer_gemm_limit_gops")) and _positive(doc.get("paraformer_60s_encoder_floor_s"))
    assert 0 < doc["paraformer_60s_floor_fraction"] <= 1, doc["paraformer_60s_floor_fraction"]
    assert doc["paraformer_speedup_vs_funasr_60s_ceiling"] > doc["paraformer_speedup_vs_funasr_60s"]
    assert "## Paraformer-zh" in md and "| paraformer_peak_rss_mb |" in md
    # Speaker labels beside Nano int8 on the same file (issue 33).
    for key in ("diarization_share_of_file", "diarization_60min_s", "diarization_peak_rss_delta_mb"):
        assert isinstance(doc.get(key), (int, float)) and math.isfinite(doc[key]), (key, doc.get(key))
    # (the tiny Nano transcribes faster than the tiny CAM++ labels: a quick run's share is above 1)
    assert doc["diarization_share_of_file"] > 0 and doc["diarization_60min_s"] > 0
    assert r["diarization"]["hour"]["windows"] > 20 and "## Speaker labels" in md
    # The products-alone stage times the same convolutions the floor counts (issue 45).
    products = r["diarization"]["products"]
    assert math.isclose(products["window_flops"], r["diarization"]["hour"]["window_flops"], rel_tol=1e-9)
    # Each product is one of the run's GEMMs, so none is faster than the floor's speed: alone they stay above it.
    assert 0 < doc["diarization_products_floor_fraction"] <= 1, doc["diarization_products_floor_fraction"]
    # Each sherpa-onnx peer runs where its module finds what it needs (SenseVoice's also needs local copies of
    # two repositories), and otherwise says why in one line.
    import sherpa_paraformer
    import sherpa_sensevoice

    for family, peer in (("sensevoice", sherpa_sensevoice), ("paraformer", sherpa_paraformer)):
        why = peer.unavailable()
        if why is None:
            assert _positive(s[f"{family}_speedup_vs_sherpa_3s"]) and _positive(s[f"{family}_speedup_vs_sherpa_60s"])
        else:
            assert f"sherpa-onnx skipped: {why}" in md and f"{family}_speedup_vs_sherpa_3s" not in s, family
    # Qwen3-ASR, both sizes, against transformers with the same forced budget.
    for size in ("0_6b", "1_7b"):
        for name in (
            "speedup_vs_reference_e2e",
            "peak_rss_mb",
            "prefill_60s_fraction_of_llama_batch",
            "dictation_3s_vs_nano",
            "gen_vs_nano_same_positions",
            "encoder_60s_s",
            "gen_tok_s",
        ):
            assert _positive(doc.get(f"qwen3_asr_{size}_{name}")), (size, name)
    for size, q in r["qwen3_asr"].items():
        assert q["tingji"]["e2e"]["tokens_total"] == q["reference"]["e2e"]["tokens_total"], size
    assert "## Qwen3-ASR" in md and "| qwen3_asr_0_6b_speedup_vs_reference_e2e |" in md
    # Decoder ratios; FunASR's C++ runtime is a peer only with --funasr-runtime, and says so when absent.
    assert _positive(s["decoder_fraction_of_kernel_ceiling"]) and _positive(s["prefill_fraction_of_llama_batch"])
    assert "FunASR C++ runtime peer skipped:" in md and "funasr_runtime_skipped" in s


def test_encoder_flop_count_matches_torch():
    """The architecture count in benchmarks/flops.py against torch's FlopCounterMode on the module."""
    import torch
    from flops import encoder_flops
    from torch.utils.flop_counter import FlopCounterMode

    from tingji.export.fun_asr_nano.dims import AudioDims
    from tingji.export.fun_asr_nano.modules import EncoderGraph

    dims = AudioDims(
        encoder_dim=64,
        encoder_heads=4,
        encoder_ffn=128,
        encoder_blocks=3,
        tp_blocks=2,
        llm_dim=96,
        adaptor_ffn=128,
        adaptor_layers=2,
        adaptor_heads=4,
        ctc_vocab=0,
    )
    model = EncoderGraph(dims).eval()
    t = 50
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(torch.randn(1, t, dims.input_size), torch.ones(1, t))
    counted = counter.get_total_flops()
    ours = encoder_flops(dims, t)["total"]
    assert abs(ours - counted) / counted < 0.02, (ours, counted)


@pytest.mark.parametrize("family", ["paraformer", "sensevoice"])
def test_sanm_encoder_flop_count_matches_torch(family, request):
    """benchmarks/flops.py's SAN-M count from config.yaml against FlopCounterMode on funasr's own encoder
    (Paraformer's SANMEncoder; SenseVoice's with its tp blocks)."""
    import torch
    from flops import sanm_encoder_flops
    from torch.utils.flop_counter import FlopCounterMode

    prefix = {"paraformer": "pf", "sensevoice": "sv"}[family]
    checkpoint = request.getfixturevalue(f"{prefix}_checkpoint")
    reference = request.getfixturevalue(f"{prefix}_reference")
    t = 40
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        reference.model.encoder(torch.randn(1, t, 80 * 7), torch.tensor([t]))  # n_mels x lfr_m
    counted = counter.get_total_flops()
    ours = sanm_encoder_flops(checkpoint, t)["total"]
    print(f"{family} encoder over {t} frames: {ours:.4g} FLOPs counted from config.yaml, {counted:.4g} by torch")
    assert abs(ours - counted) / counted < 0.02, (ours, counted)


def test_decoder_bytes_per_token_counts_every_tensor(tmp_path):
    """Bytes per token = all GGUF tensor bytes + the KV cache at that position."""
    import gguf
    import numpy as np
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


# -- FunASR's C++ runtime peer (benchmarks/funasr_runtime.py): the parts that need no C++ build


def test_funasr_runtime_skip_line_without_the_flag():
    import funasr_runtime
    import run

    why = funasr_runtime.unavailable(None)
    assert why and "--funasr-runtime" in why
    res = {"funasr_runtime": {"skipped": why}}
    assert run.funasr_runtime_summary(res) == {"funasr_runtime_skipped": why}
    assert run.funasr_runtime_row(res).startswith("| FunASR C++ runtime peer skipped: no --funasr-runtime")
    lines = funasr_runtime.markdown(None, why, None, None, None)
    assert f"FunASR C++ runtime peer skipped: {why}" in lines


def test_funasr_runtime_rejects_a_folder_without_the_runtime(tmp_path):
    import funasr_runtime

    why = funasr_runtime.unavailable(tmp_path)
    assert why and "neither a FunASR checkout" in why


def test_funasr_runtime_timing_lines_parse():
    """Sample stderr in the format the build-time edits print (plus llama.cpp's own log lines)."""
    import funasr_runtime

    err = "\n".join(
        [
            "llama_context: n_ctx = 2048",
            "[tjb] load_s=0.540000",
            "[tjb] window=0 audio_s=60.000 fbank_s=0.200000 enc_s=7.000000 enc_frames=1000 prefill_s=0.600000 "
            "prefill_rows=147 gen_s=7.400000 gen_steps=200",
            "[tjb] window=1 audio_s=30.500 fbank_s=0.100000 enc_s=3.000000 enc_frames=509 prefill_s=0.300000 "
            "prefill_rows=85 gen_s=7.000000 gen_steps=200",
            "[done] 26.10s ; chunk=60s",
        ]
    )
    p = funasr_runtime.parse_stderr(err)
    assert p["load_s"] == 0.54 and p["done_s"] == 26.1
    assert [w["window"] for w in p["windows"]] == [0, 1]
    assert p["windows"][1]["enc_frames"] == 509 and p["windows"][1]["audio_s"] == 30.5
    t = p["totals"]
    assert t["gen_steps"] == 400 and t["prefill_rows"] == 232
    assert abs(t["enc_s"] - 10.0) < 1e-9 and abs(t["gen_steps_per_s"] - 400 / 14.4) < 1e-9
    usage = funasr_runtime.parse_time_v(
        "\tUser time (seconds): 50.12\n\tSystem time (seconds): 1.50\n\tMaximum resident set size (kbytes): 1057792\n"
    )
    assert usage == {"user_s": 50.12, "sys_s": 1.5, "peak_rss_mb": 1033.0}


def test_funasr_runtime_edit_names_the_anchor_it_misses():
    import funasr_runtime

    with pytest.raises(ValueError, match="helpers after the last #include"):
        funasr_runtime.patch_cli("int main() { return 0; }\n")


def test_funasr_runtime_metadata_follows_the_checkpoint(tmp_path):
    """The export script's fixed full-size metadata is set to the checkpoint's config.yaml sizes."""
    import funasr_runtime
    import gguf
    import numpy as np

    path = tmp_path / "enc.gguf"
    w = gguf.GGUFWriter(str(path), "funasr-sensevoice-encoder")
    w.add_uint32("funasr.enc.num_blocks", 50)
    w.add_uint32("funasr.adp.llm_dim", 1024)
    w.add_uint32("funasr.frontend.n_mels", 80)
    w.add_tensor("audio_encoder.after_norm.weight", np.ones(4, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    cfg = {
        "audio_encoder_conf": {
            "output_size": 64,
            "attention_heads": 4,
            "linear_units": 128,
            "num_blocks": 3,
            "tp_blocks": 2,
            "kernel_size": 11,
        },
        "audio_adaptor_conf": {"llm_dim": 64, "encoder_dim": 64, "ffn_dim": 128, "n_layer": 2, "attention_heads": 4},
    }
    changed = funasr_runtime.fix_metadata(path, funasr_runtime.metadata_from_config(cfg))
    assert changed == {"funasr.enc.num_blocks": [50, 3], "funasr.adp.llm_dim": [1024, 64]}
    r = gguf.GGUFReader(str(path))
    assert int(r.get_field("funasr.enc.num_blocks").contents()) == 3
    assert int(r.get_field("funasr.frontend.n_mels").contents()) == 80
    assert np.array_equal(r.get_tensor(0).data, np.ones(4, np.float32))


def _github_anchor(heading: str) -> str:
    """The id GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_pointers_into_the_benchmark_readme_name_a_heading():
    """Figures live in benchmarks/README.md and the code points at them by heading: a renamed heading must not
    leave a pointer behind that goes nowhere."""
    readme = ROOT / "benchmarks" / "README.md"
    anchors = {_github_anchor(line.lstrip("#")) for line in readme.read_text().splitlines() if line.startswith("#")}
    pointer = re.compile(r"benchmarks/README\.md#([\w\-]+)")
    sources = [*(ROOT / "app").rglob("*.py"), *(ROOT / "docs").glob("*.md"), ROOT / "README.md"]
    found = [(path, m.group(1)) for path in sources for m in pointer.finditer(path.read_text(encoding="utf-8"))]
    missing = [f"{path.relative_to(ROOT)}: #{name}" for path, name in found if name not in anchors]
    print(f"{len(found)} pointers into benchmarks/README.md, {len(missing)} without a heading")
    assert found and missing == []
    assert _github_anchor("NumPy's BLAS on one thread (2026-11-26, AMD EPYC, 2 threads)") == (
        "numpys-blas-on-one-thread-2026-11-26-amd-epyc-2-threads"
    )


def test_quick_qwen3_sizes_share_one_tiny_checkpoint(tmp_path):
    """benchmarks/qwen3_asr.py --quick builds and exports one tiny checkpoint for both sizes: that is only the same
    measurement if the tiny checkpoints of the two sizes are the same files."""
    from tiny_qwen3_asr import make_checkpoint

    a = make_checkpoint(tmp_path / "0.6b", seed=0, size="0.6b")
    b = make_checkpoint(tmp_path / "1.7b", seed=0, size="1.7b")
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir()) and "model.safetensors" in names
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_sherpa_paraformer_peer_runs_the_same_model(pf_checkpoint, pf_reference, tmp_path):
    """The Paraformer peer's model (funasr's own export, with the metadata and tokens.txt the benchmark adds)
    loads in sherpa-onnx and decodes what funasr's torch model decodes on the same weights and audio."""
    sherpa_onnx = pytest.importorskip("sherpa_onnx")  # an optional peer, like the benchmark's
    import numpy as np
    import sherpa_paraformer
    from speech import make_utterance

    from tingji.engine.frontend import load_cmvn

    ckpt = pf_checkpoint
    built = sherpa_paraformer.build(ckpt, tmp_path / "sherpa")
    meta = sherpa_paraformer.metadata(ckpt)
    cmvn = load_cmvn(ckpt / "am.mvn")
    assert np.array_equal(np.array(meta["neg_mean"].split(","), np.float32), cmvn.shift)
    assert np.array_equal(np.array(meta["inv_stddev"].split(","), np.float32), cmvn.scale)
    symbols = [line.rsplit(" ", 1)[0] for line in (tmp_path / "sherpa" / "tokens.txt").read_text().splitlines()]
    assert symbols == json.loads((ckpt / "tokens.json").read_text()) and meta["vocab_size"] == str(len(symbols))

    wav = make_utterance(3.0)
    ref = pf_reference.run(wav)
    # funasr's best token per fired slot; sherpa-onnx's greedy search stops at </s> (id 2) and keeps the rest.
    best = [int(i) for i in ref["log_probs"].argmax(-1)]
    expected = [symbols[i] for i in (best[: best.index(2)] if 2 in best else best)]
    found = {}
    for name in ("model", "model_int8"):
        rec = sherpa_onnx.OfflineRecognizer.from_paraformer(paraformer=built[name], tokens=built["tokens"])
        stream = rec.create_stream()
        stream.accept_waveform(16000, wav)
        rec.decode_stream(stream)
        found[name] = list(stream.result.tokens)
    print(f"funasr {len(best)} slots; sherpa-onnx fp32 {len(found['model'])}, int8 {len(found['model_int8'])} tokens")
    assert found["model"] == expected  # fp32: the same model; int8's choices may differ with the CPU's kernel
    assert found["model_int8"] and set(found["model_int8"]) <= set(symbols)


def test_paired_runs_take_turns_and_report_both_sides():
    """benchmarks/common.paired: each side once untimed, then pairs whose first runner alternates; per-run
    seconds and medians of both sides, under the peer's name, and the median speed-up."""
    import time

    from common import paired

    calls = []

    def side(name):
        def run(samples):
            time.sleep(0.001)  # a run takes some time: the speed-up divides by it
            calls.append((name, len(samples)))

        return run

    out = paired(side("tingji"), side("sherpa"), [0.0] * 5, 3, "sherpa")
    order = [name for name, _ in calls]
    assert order == ["tingji", "sherpa", "tingji", "sherpa", "sherpa", "tingji", "tingji", "sherpa"]
    assert all(n == 5 for _, n in calls)
    assert set(out) == {"tingji_s", "sherpa_s", "tingji_median_s", "sherpa_median_s", "speedup_median"}
    assert len(out["tingji_s"]) == len(out["sherpa_s"]) == 3
    assert all(_positive(out[k]) for k in ("tingji_median_s", "sherpa_median_s", "speedup_median"))
