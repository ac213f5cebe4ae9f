"""The LLM prompt, built the way the reference builds it.

Fun-ASR-Nano was trained on one ChatML layout: a system turn, a user turn made
of an instruction followed by the audio, then the assistant turn. The exact
characters matter (the tokens are what the model saw in training), so the
pieces come from the model's manifest, which the exporter fills from the
reference's `get_prompt` and `data_load_speech`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...languages import NAMES, normalise
from ...schema import entry


@dataclass(frozen=True, kw_only=True)
class PromptPieces:
    """The prompt's pieces (the manifest's `prompt`); the defaults are the reference's
    (funasr/models/fun_asr_nano/model.py)."""

    system: str = "You are a helpful assistant."
    use_system: bool = True
    think_block: str = ""  # "<think>\n\n</think>\n\n" when the config disables thinking
    hotwords_intro: str = (
        "请结合上下文信息，更加准确地完成语音转写任务。如果没有相关信息，我们会留空。\n\n\n**上下文信息：**\n\n\n"
    )
    hotwords_line: str = entry("热词列表：[{hotwords}]\n", placeholders=("hotwords",))
    hotwords_separator: str = ", "
    task: str = "语音转写"
    task_with_language: str = entry("语音转写成{language}", placeholders=("language",))
    no_itn: str = "，不进行文本规整"
    end: str = "："
    # The default prompt as text, for a person reading the manifest (the engine builds its own).
    default_before: str = ""
    default_after: str = ""


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
    pieces: PromptPieces | None = None,
    *,
    language: str | None = None,
    hotwords: Sequence[str] = (),
    itn: bool = True,
) -> Prompt:
    """The prompt around the audio rows; `pieces` None: the reference's."""
    p = pieces or PromptPieces()
    words = [w.strip() for w in hotwords if w and w.strip()]
    instruction = ""
    if words:
        instruction += p.hotwords_intro
        instruction += p.hotwords_line.format(hotwords=p.hotwords_separator.join(words))
    name = language_word(language)
    instruction += p.task if name is None else p.task_with_language.format(language=name)
    if not itn:
        instruction += p.no_itn
    instruction += p.end
    head = f"<|im_start|>system\n{p.system}<|im_end|>\n" if p.use_system else ""
    before = f"{head}<|im_start|>user\n{instruction}"
    after = "<|im_end|>\n<|im_start|>assistant\n" + p.think_block
    return Prompt(before=before, after=after)


def pieces_from_config(config: dict[str, Any]) -> PromptPieces:
    """Prompt pieces for a checkpoint, honouring its dataset_conf switches as the reference does."""
    dataset = config.get("dataset_conf") or {}
    return replace(
        PromptPieces(),
        use_system=bool(dataset.get("sys_prompt", True)),
        think_block="" if dataset.get("do_think", True) else "<think>\n\n</think>\n\n",
    )
