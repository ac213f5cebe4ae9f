"""The LLM prompt, built the way the reference builds it.

Fun-ASR-Nano was trained on one ChatML layout: a system turn, a user turn made
of an instruction followed by the audio, then the assistant turn. The exact
characters matter (the tokens are what the model saw in training), so the
pieces come from the model's manifest, which the exporter fills from the
reference's `get_prompt` and `data_load_speech`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...languages import NAMES, normalise

# The reference's prompt pieces (funasr/models/fun_asr_nano/model.py).
DEFAULT_PIECES: dict[str, Any] = {
    "system": "You are a helpful assistant.",
    "use_system": True,
    "think_block": "",  # "<think>\n\n</think>\n\n" when the config disables thinking
    "hotwords_intro": (
        "请结合上下文信息，更加准确地完成语音转写任务。如果没有相关信息，我们会留空。\n\n\n**上下文信息：**\n\n\n"
    ),
    "hotwords_line": "热词列表：[{hotwords}]\n",
    "hotwords_separator": ", ",
    "task": "语音转写",
    "task_with_language": "语音转写成{language}",
    "no_itn": "，不进行文本规整",
    "end": "：",
}

# Language codes (engine.languages) -> the words the model was prompted with in training.
LANGUAGE_WORDS = {"zh": "中文", "en": "英文", "ja": "日文", "yue": "粤语", "ko": "韩文"}


def language_word(language: str | None) -> str | None:
    """The model's wording for a language code or name; other languages by their English name.

    Fun-ASR-Nano was trained on the five languages above; for any other the
    English name is the most likely thing its LLM understands.
    """
    code = normalise(language)
    if code is None:
        return None
    return LANGUAGE_WORDS.get(code) or NAMES.get(code, code)


@dataclass(frozen=True)
class Prompt:
    """Text before the audio embeddings and text after them."""

    before: str
    after: str


def build_prompt(
    pieces: dict[str, Any] | None = None, *, language: str | None = None, hotwords: Sequence[str] = (), itn: bool = True
) -> Prompt:
    p = {**DEFAULT_PIECES, **(pieces or {})}
    words = [w.strip() for w in hotwords if w and w.strip()]
    instruction = ""
    if words:
        instruction += p["hotwords_intro"]
        instruction += p["hotwords_line"].format(hotwords=p["hotwords_separator"].join(words))
    name = language_word(language)
    instruction += p["task"] if name is None else p["task_with_language"].format(language=name)
    if not itn:
        instruction += p["no_itn"]
    instruction += p["end"]
    head = f"<|im_start|>system\n{p['system']}<|im_end|>\n" if p["use_system"] else ""
    before = f"{head}<|im_start|>user\n{instruction}"
    after = "<|im_end|>\n<|im_start|>assistant\n" + p["think_block"]
    return Prompt(before=before, after=after)


def pieces_from_config(config: dict[str, Any]) -> dict[str, Any]:
    """Prompt pieces for a checkpoint, honouring its dataset_conf switches as the reference does."""
    dataset = config.get("dataset_conf") or {}
    pieces = dict(DEFAULT_PIECES)
    pieces["use_system"] = bool(dataset.get("sys_prompt", True))
    if not dataset.get("do_think", True):
        pieces["think_block"] = "<think>\n\n</think>\n\n"
    return pieces
