"""Qwen3-ASR's prompt and the shape of its answer.

The release's chat template renders one layout (transformers' test of the
-hf release checks the same text):

    <|im_start|>system\\n{context}<|im_end|>\\n<|im_start|>user\\n
    <|audio_start|>{one <|audio_pad|> per audio row}<|audio_end|><|im_end|>\\n
    <|im_start|>assistant\\n

The system turn is always there, empty without context; the context is free
text (Tingji puts the hotwords there). The audio rows replace the
placeholders, so the engine tokenizes the text before and after them. The
model answers `language English<asr_text>the text`, or `language
None<asr_text>` for no speech; a language is forced by ending the prompt
with `language English<asr_text>`, after which it writes the text only.
The pieces live in the manifest (`ChatTemplate`; the exporter writes these
defaults), so a release with another template needs no engine change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...schema import entry


@dataclass(frozen=True, kw_only=True)
class ChatTemplate:
    """The prompt's pieces and the answer's markers (the manifest's `prompt`); the defaults are the release's."""

    before: str = "<|im_start|>system\n{context}<|im_end|>\n<|im_start|>user\n<|audio_start|>"
    after: str = "<|audio_end|><|im_end|>\n<|im_start|>assistant\n"
    forced_language: str = "language {language}<asr_text>"
    context_separator: str = ", "
    text_marker: str = entry("<asr_text>", nonempty=True)
    language_prefix: str = "language "


REPEAT_THRESHOLD = 20  # the reference's clean-up: runs repeated more than this collapse to one


@dataclass(frozen=True)
class Prompt:
    before: str
    after: str


def build_prompt(
    pieces: ChatTemplate = ChatTemplate(), *, language_name: str | None = None, hotwords: Sequence[str] = ()
) -> Prompt:
    """Text before and after the audio rows; `language_name` is the model's own spelling (e.g. "English")."""
    p = pieces
    context = p.context_separator.join(w.strip() for w in hotwords if w and w.strip())
    after = p.after
    if language_name:
        after += p.forced_language.replace("{language}", language_name)
    return Prompt(before=p.before.replace("{context}", context), after=after)


def parse_answer(text: str, pieces: ChatTemplate = ChatTemplate(), *, forced: bool = False) -> tuple[str | None, str]:
    """(language name or None, transcription) from the generated text (special tokens already dropped).

    A forced prompt already holds the language and the marker, so the whole
    answer is text. Otherwise the first line before the marker names the
    language; "None" means the model heard no speech.
    """
    p = pieces
    text = text.strip()
    if forced or p.text_marker not in text:
        return None, collapse_repeats(text).strip()
    head, body = text.split(p.text_marker, 1)
    line = next((ln.strip() for ln in head.splitlines() if ln.strip()), "")
    prefix = p.language_prefix
    name = line[len(prefix) :].strip() if line.lower().startswith(prefix) else line
    return (None if name.lower() in ("", "none") else name), collapse_repeats(body.strip()).strip()


def collapse_repeats(text: str, threshold: int = REPEAT_THRESHOLD, longest: int = 20) -> str:
    """A character or a pattern of up to `longest` characters repeated `threshold` times or more in a row
    becomes one copy.

    The reference cleans its text this way before returning it: a greedy
    decoder stuck in a loop otherwise leaves hundreds of copies.
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        taken = 1
        for size in range(1, min(longest, (n - i) // threshold) + 1):
            unit, reps = text[i : i + size], 1
            while text.startswith(unit, i + reps * size):
                reps += 1
            if reps >= threshold:
                taken = reps * size
                break
        out.append(text[i : i + size] if taken > 1 else text[i])
        i += taken
    return "".join(out)
