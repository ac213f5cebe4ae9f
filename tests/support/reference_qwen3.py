"""transformers' native `qwen3_asr` (>= 5.23), the judge of the Qwen3-ASR family (test-only).

transformers loads the "-hf" re-release; the original release (what users
download and Tingji converts) differs only in config layout and tensor
names. This builds the native model from the original folder: the config
from `thinker_config`, the tensors renamed as transformers' own conversion
does (`thinker.audio_tower.proj1/2` -> `model.multi_modal_projector.linear_1/2`,
`thinker.audio_tower` -> `model.audio_tower`, `thinker.model` ->
`model.language_model`, `thinker.lm_head` -> `lm_head`), loaded strictly.
Inputs come from the native processor (`apply_transcription_request`:
feature extractor, chat template, forced language, context).

The `qwen-asr` package is not used: on CPU it attends over the whole clip
past 8 s and does not pad a sub-1 s chunk.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import torch

RENAMES = (
    (r"^thinker\.audio_tower\.proj1\.", "model.multi_modal_projector.linear_1."),
    (r"^thinker\.audio_tower\.proj2\.", "model.multi_modal_projector.linear_2."),
    (r"^thinker\.audio_tower\.", "model.audio_tower."),
    (r"^thinker\.model\.", "model.language_model."),
    (r"^thinker\.lm_head\.", "lm_head."),
)


def native_config(folder: Path):
    from transformers import Qwen3ASRConfig, Qwen3ASREncoderConfig, Qwen3Config

    cfg = json.loads((folder / "config.json").read_text())
    thinker = cfg["thinker_config"]
    audio = dict(thinker["audio_config"])
    keep = (
        "num_mel_bins",
        "encoder_layers",
        "encoder_attention_heads",
        "encoder_ffn_dim",
        "d_model",
        "activation_function",
        "scale_embedding",
        "n_window",
        "output_dim",
        "n_window_infer",
        "downsample_hidden_size",
    )
    audio_config = Qwen3ASREncoderConfig(**{k: audio[k] for k in keep if k in audio})
    text = dict(thinker["text_config"])
    text_keys = (
        "vocab_size",
        "hidden_size",
        "intermediate_size",
        "num_hidden_layers",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "hidden_act",
        "max_position_embeddings",
        "rms_norm_eps",
        "attention_bias",
        "tie_word_embeddings",
    )
    text_config = Qwen3Config(
        **{k: text[k] for k in text_keys if k in text},
        rope_parameters={"rope_type": "default", "rope_theta": float(text["rope_theta"])},
    )
    generation = json.loads((folder / "generation_config.json").read_text())
    return Qwen3ASRConfig(
        audio_config=audio_config,
        text_config=text_config,
        audio_token_id=thinker["audio_token_id"],
        pad_token_id=generation["pad_token_id"],
        eos_token_id=list(generation["eos_token_id"]),
        tie_word_embeddings=bool(text.get("tie_word_embeddings", True)),
    )


def native_name(name: str) -> str:
    for pattern, new in RENAMES:
        if re.match(pattern, name):
            return re.sub(pattern, new, name)
    return name


def load_weights(model: torch.nn.Module, folder: Path) -> None:
    """Copy the release's tensors into the model one at a time (a full-size 1.7B fits in memory once)."""
    from safetensors import safe_open

    params = dict(model.state_dict(keep_vars=True))
    seen = set()
    with safe_open(str(folder / "model.safetensors"), framework="pt") as fh:
        for name in fh.keys():
            target = params.get(native_name(name))
            if target is None:
                raise AssertionError(f"reference load: unexpected tensor {name}")
            with torch.no_grad():
                target.copy_(fh.get_tensor(name).float())
            seen.add(native_name(name))
    tied = {"lm_head.weight"} if model.config.tie_word_embeddings else set()
    missing = [k for k in params if k not in seen and k not in tied]
    if missing:
        raise AssertionError(f"reference load: missing {missing[:5]}")


class Qwen3Reference:
    def __init__(self, folder: Path) -> None:
        from transformers import AutoTokenizer, Qwen3ASRFeatureExtractor, Qwen3ASRForConditionalGeneration
        from transformers.models.qwen3_asr.processing_qwen3_asr import Qwen3ASRProcessor

        self.folder = Path(folder)
        config = native_config(self.folder)
        self.model = Qwen3ASRForConditionalGeneration(config).eval()
        load_weights(self.model, self.folder)
        template = json.loads((self.folder / "chat_template.json").read_text())["chat_template"]
        self.tokenizer = AutoTokenizer.from_pretrained(self.folder)
        self.processor = Qwen3ASRProcessor(
            feature_extractor=Qwen3ASRFeatureExtractor(), tokenizer=self.tokenizer, chat_template=template
        )
        self.eos = set(config.eos_token_id)

    def inputs(self, wav: np.ndarray, *, language: str | None = None, context: str | None = None):
        return self.processor.apply_transcription_request(
            audio=np.asarray(wav, np.float32), language=language, prompt=context
        )

    def features(self, wav: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The feature extractor's log-mel [128, T'] and frame mask [T'] (T' a multiple of 100)."""
        out = self.processor.feature_extractor(
            np.asarray(wav, np.float32), sampling_rate=16000, padding=True, return_attention_mask=True
        )
        return out["input_features"][0].numpy(), out["attention_mask"][0].numpy()

    def encode(self, wav: np.ndarray) -> np.ndarray:
        """Projected audio rows [tokens, llm_dim] as the model places them in the prompt."""
        feats, mask = self.features(wav)
        with torch.no_grad():
            out = self.model.get_audio_features(torch.from_numpy(feats)[None], torch.from_numpy(mask)[None].long())
        return out.pooler_output.numpy()

    def run(
        self, wav: np.ndarray, *, language: str | None = None, context: str | None = None, max_new_tokens: int = 256
    ) -> dict:
        """Greedy generation: the new token ids up to (not including) EOS, and the prompt ids."""
        inputs = self.inputs(wav, language=language, context=context)
        with torch.no_grad():
            out = self.model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False)
        prompt = inputs["input_ids"][0].tolist()
        ids = out[0, len(prompt) :].tolist()
        stop = next((i for i, t in enumerate(ids) if t in self.eos), len(ids))
        text = self.processor.decode(ids[:stop], skip_special_tokens=True)
        return {"ids": ids[:stop], "prompt": prompt, "text": text}


def minute_of_speech(speech_en: np.ndarray, speech_zh: np.ndarray) -> np.ndarray:
    """A minute of real speech (both languages, tiled) to cut clips of any length from."""
    both = np.concatenate([speech_en, np.zeros(4000, np.float32), speech_zh])
    return np.tile(both, -(-60 * 16000 // len(both)) + 1)


def tower_session(path: Path, exact: bool = True):
    """An exported audio tower on the CPU, with the engine's session options (`exact`: the reference's)."""
    import onnxruntime as ort

    from tingji.engine.sessions import session_options

    return ort.InferenceSession(
        str(path), sess_options=session_options("cpu", None, exact=exact), providers=["CPUExecutionProvider"]
    )


def tower_rows(session, mel: np.ndarray) -> np.ndarray:
    """The tower's audio rows for one clip's log-mel (no padding: the mask is all ones)."""
    from tingji.engine.families.qwen3_asr.encoder import num_tower_rows

    (rows,) = session.run(None, {"mel": mel[None], "mask": np.ones((1, len(mel)), np.float32)})
    return rows[0, : num_tower_rows(len(mel))]
