#!/usr/bin/env python3
"""What an int8 timestamp head costs Paraformer's token times, beside what the int8 encoder costs them.

    python benchmarks/exp_timestamp_head.py [--json OUT]

Uses paraformer.py's full-size cache (run it once first): the int8 export, and an fp32 export of
the same checkpoint made here once (`.cache/full/paraformer/fp32`). The file's 60 s windows go
through the fp32 encoder; the token count is the fp32 CIF's. The times (funasr's rules, `cif.py`)
from the fp32 head on those states are the reference, compared with the int8 head's on the same
states, and with the fp32 head's on the int8 encoder's states. Prints, per window, how many token
times moved and by how much, and how far the head's weights moved.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BENCH, emit_json  # noqa: E402

WINDOW_S = 60


def main(argv: list[str] | None = None) -> int:
    import onnxruntime as ort
    import soundfile as sf

    from tingji.engine.families.paraformer import cif
    from tingji.engine.frontend import features, load_cmvn
    from tingji.engine.manifest import load_manifest
    from tingji.engine.sessions import session_options

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)
    cache = BENCH / ".cache" / "full" / "paraformer"
    fp32_dir, int8_dir = cache / "fp32", cache / "int8"
    if not (int8_dir / "manifest.json").is_file():
        raise SystemExit(f"no int8 export in {int8_dir}: run benchmarks/paraformer.py first")
    if not (fp32_dir / "manifest.json").is_file():
        cmd = [sys.executable, "-m", "tingji", "export-model", "--source", str(cache / "checkpoint")]
        subprocess.run([*cmd, "--out", str(fp32_dir), "--precision", "fp32", "--no-fixed"], check=True)
    m32, m8 = load_manifest(fp32_dir), load_manifest(int8_dir)

    def session(path: Path) -> ort.InferenceSession:
        return ort.InferenceSession(str(path), session_options("cpu", 2), providers=["CPUExecutionProvider"])

    enc32, enc8 = session(m32.file("encoder")), session(m8.file("encoder"))
    head32, head8 = session(m32.file("timestamp")), session(m8.file("timestamp"))
    c = m32.section.cif
    cmvn = load_cmvn(m32.file("cmvn"))
    wav = sf.read(str(cache / "long300.wav"), dtype="float32")[0]

    def times(weights: np.ndarray, tokens: int) -> np.ndarray:
        return np.array(cif.head_token_times(weights, tokens, ["x"] * tokens, c.frame_seconds, c.upsample_times))

    windows = []
    for start in range(0, len(wav) - 16000 * 5, 16000 * WINDOW_S):
        feats = features(wav[start : start + 16000 * WINDOW_S], m32.frontend, cmvn)[None]
        mask = np.ones(feats.shape[:2], np.float32)
        states, alphas = enc32.run(None, {"speech": feats, "mask": mask})
        states8 = enc8.run(None, {"speech": feats, "mask": mask})[0]
        tokens = cif.fire_loop(alphas[0], states[0], c.tail_threshold).token_count
        ref_w = head32.run(None, {"enc": states})[0][0]
        ref = times(ref_w, tokens)
        row: dict = {"start_s": start // 16000, "tokens": len(ref)}
        for name, w in (
            ("int8_head", head8.run(None, {"enc": states})[0][0]),
            ("int8_encoder", head32.run(None, {"enc": states8})[0][0]),
        ):
            got = times(w, tokens)
            moved = np.abs(got - ref).max(axis=1) if got.shape == ref.shape else None
            row[name] = {
                "weights_max_abs_diff": float(np.abs(w - ref_w).max()),
                "times_moved": None if moved is None else int((moved > 0).sum()),
                "largest_move_ms": None if moved is None else int(moved.max(initial=0)),
            }
        windows.append(row)
        print(row)
    total = {k: sum(w[k]["times_moved"] or 0 for w in windows) for k in ("int8_head", "int8_encoder")}
    print(f"token times moved, of {sum(w['tokens'] for w in windows)}: {total}")
    emit_json({"windows": windows, "times_moved": total}, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
