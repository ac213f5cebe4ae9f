"""Punctuation for transcripts of models that emit none: FunASR's CT-Transformer, as funasr applies it.

A punctuation model is a model folder of its own (manifest family
`ct-punc`): one ONNX graph (token ids -> the best mark per token), the
vocabulary, and a section naming the marks. `Punctuator.punctuate(text)`
follows funasr's `CTTransformer.inference` step by step:

* the text is split into words: runs of ASCII characters, and every other
  character alone; each word is looked up in the vocabulary (`<unk>`
  otherwise);
* words are marked 20 at a time; after each chunk but the last, the words
  after the chunk's last sentence end (`。` or `？`, looked for from the
  second-to-last word down to the third) are carried into the next chunk,
  so a sentence is always marked whole; a carry longer than 200 words is
  cut at its last comma instead;
* the transcript always ends with a sentence end.

The marks are then put into the text itself after each word (funasr's
`_punctuate_surface_text`): the words stay as the recogniser wrote them,
and after an English word the marks are ASCII (`,` `.` `?`). funasr's own
rewriting of the text (capitals after a sentence end, spaces between ASCII
words) is computed too, but only used when the marks cannot be put back.
A mark class the model should never predict (`<unk>`) puts nothing in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import messages
from .companions import Companion, read_tokens
from .families.ct_punc import FAMILY, PunctuationSection
from .sessions import GraphSpec, OnnxGraphs

SENTENCE_ENDS = ("。", "？")
ASCII_MARKS = {"，": ",", "。": ".", "？": "?", "、": ","}


def split_words(text: str) -> list[str]:
    """funasr's split_words without a word dictionary: ASCII runs are words, other characters stand alone."""
    words: list[str] = []
    for part in text.split():
        run = ""
        for ch in part:
            if len(ch.encode()) == 1:
                run += ch
                continue
            if run:
                words.append(run)
                run = ""
            words.append(ch)
        if run:
            words.append(run)
    return words


def chunks(items: list, size: int) -> list[list]:
    """funasr's split_to_mini_sentence: `size` at a time, the remainder last."""
    if len(items) <= size:
        return [items]
    return [items[i : i + size] for i in range(0, len(items), size)]


@dataclass
class Punctuated:
    """Args:
    text: the input with the marks put in after their words.
    words: the words the model marked.
    marks: the mark class per word (funasr's `punc_array`).
    funasr_text: funasr's own rewriting of the text with the marks (capitals, ASCII spacing).
    """

    text: str
    words: list[str]
    marks: list[int]
    funasr_text: str


class Punctuator(Companion):
    """A loaded punctuation model (`companions.Companion`: the folder checked and verified, its graph on the
    shared session layer with the recogniser's provider, checks and graph cache).

    The graph runs at the real length (a chunk is 20 words plus what was
    carried over, no fixed shape); its ArgMax's scores are an output too
    (`GraphSpec.scores`), so a NaN inside it is the coded `engine.not_finite`
    rather than marks picked from NaN.

    Args:
        folder: A Tingji model folder of the `ct-punc` family.
        options: How to load it (the engine passes its own); None: the defaults.
        check_hashes: Verify every file's SHA-256 before loading (sizes are always checked).
        choices: `LoadOptions` fields set on top of `options` (a script's `provider="cpu"`, `threads=2`).
    """

    FAMILY = FAMILY
    REFUSED = messages.NOT_PUNCTUATION
    SPECS = (GraphSpec("punc", padded=False, scores=True),)
    section: PunctuationSection

    def prepare(self) -> None:
        tokens = read_tokens(self.manifest.file("tokens"), self.section.vocab_size, messages.PUNC_TOKENS)
        self.ids = {t: i for i, t in enumerate(tokens)}

    def warm_up(self, graphs: OnnxGraphs) -> None:
        self.classes([self.section.unk_id], graphs)

    def classes(self, ids: list[int], graphs: OnnxGraphs | None = None) -> list[int]:
        """The best mark class per token id."""
        x = np.array([ids], np.int64)
        feeds = {"ids": x, "mask": np.ones(x.shape, np.float32)}
        best = (graphs or self.graphs).run("punc", {}, 0, other=feeds, bucket=None, record=False)[0]
        return [int(c) for c in best[0]]

    def punctuate(self, text: str) -> Punctuated:
        """`text` with the marks put in; unchanged when it holds no word."""
        words = split_words(text)
        if not words:
            return Punctuated(text, [], [], text)
        s = self.section
        ids = [self.ids.get(w, s.unk_id) for w in words]
        pieces = list(zip(chunks(words, s.split_size), chunks(ids, s.split_size)))
        carry_words: list[str] = []
        carry_ids: list[int] = []
        marks: list[int] = []
        out = ""
        for k, (chunk_words, chunk_ids) in enumerate(pieces):
            chunk_words, chunk_ids = carry_words + chunk_words, carry_ids + chunk_ids
            found = self.classes(chunk_ids)
            if k < len(pieces) - 1:
                end = self._sentence_end(found, len(chunk_words))
                carry_words, carry_ids = chunk_words[end + 1 :], chunk_ids[end + 1 :]
                chunk_words, found = chunk_words[: end + 1], found[: end + 1]
            marks += found
            out += self._funasr_text(chunk_words, found)
        out, marks = self._final_mark(out, marks)
        surface = self._surface(text, words, marks)
        return Punctuated(out if surface is None else surface, words, marks, out)

    def _sentence_end(self, found: list[int], length: int) -> int:
        """Where a chunk is cut (the words after are carried on): its last sentence end, or -1.

        A long carry with no sentence end is cut at its last comma, which then becomes one.
        """
        s = self.section
        comma = -1
        for i in range(len(found) - 2, 1, -1):
            if s.marks[found[i]] in SENTENCE_ENDS:
                return i
            if comma < 0 and s.marks[found[i]] == "，":
                comma = i
        if length > s.carry_limit and comma >= 0:
            found[comma] = s.sentence_end_id
            return comma
        return -1

    def _funasr_text(self, words: list[str], found: list[int]) -> str:
        """funasr's text for a chunk: ASCII words spaced and capitalised at sentence starts, marks after."""
        marks = self.section.marks
        words = list(words)
        out = []
        for i in range(len(words)):
            ascii_start = len(words[i][0].encode()) == 1
            if (i == 0 or marks[found[i - 1]] in SENTENCE_ENDS) and ascii_start:
                words[i] = words[i].capitalize()
            if i == 0 and ascii_start:
                words[i] = " " + words[i]
            if i > 0 and ascii_start and len(words[i - 1][0].encode()) == 1:
                words[i] = " " + words[i]
            out.append(words[i])
            if marks[found[i]] != "_":
                mark = marks[found[i]]
                out.append(ASCII_MARKS.get(mark, mark) if ascii_start and mark != "、" else mark)
        return "".join(out)

    def _final_mark(self, text: str, marks: list[int]) -> tuple[str, list[int]]:
        """funasr ends the transcript with a sentence end, read off the last character of its text."""
        end = self.section.sentence_end_id
        last = text[-1]
        if last in ("，", "、"):
            text = text[:-1] + "。"
        elif last == ",":
            text = text[:-1] + "."
        elif last not in ("。", "？") and len(last.encode()) != 1:
            text += "。"
        elif last not in (".", "?") and len(last.encode()) == 1:
            text += "."
        else:
            return text, marks
        return text, marks[:-1] + [end]

    def _surface(self, text: str, words: list[str], marks: list[int]) -> str | None:
        """The marks put after their words in `text` itself; None when a word cannot be found there."""
        parts, done, cursor = [], 0, 0
        for word, mark in zip(words, marks):
            while cursor < len(text) and text[cursor].isspace():
                cursor += 1
            if text[cursor : cursor + len(word)].casefold() != word.casefold():
                return None
            cursor += len(word)
            parts.append(text[done:cursor])  # the spaces before the word stay as they were
            done = cursor
            symbol = self.section.marks[mark]
            if symbol not in ("_", "<unk>"):
                parts.append(ASCII_MARKS.get(symbol, symbol) if word[0].isascii() else symbol)
        if text[cursor:].strip():
            return None
        return "".join(parts) + text[done:]
