"""Paraformer's tokens -> words and text, with word timestamps, by funasr's `sentence_postprocess` rules.

The vocabulary holds Chinese characters, English words and `@@` word
pieces ("recog@@" + "ni@@" + "zer" = "recognizer"). funasr joins them so:

* `<s>`, `</s>`, `<unk>` and `<OOV>` are dropped;
* when every token is "Chinese" (funasr counts CJK characters, digits and
  "@" as such) the tokens are the words;
* when every token is alphabetic, pieces ending in `@@` are glued to the
  next token and each word is followed by a space (a trailing `@@` piece
  with nothing after it is dropped);
* otherwise (mixed) CJK tokens stand alone and take back the space after
  an English word before them, `@@` pieces are glued, alphabetic tokens
  end a word, and anything else is kept as it is;
* single letters separated by spaces become one upper-case abbreviation
  ("a b c" -> "ABC").

The text is the words joined as funasr prints it without timestamps
(spaces only after English words); with timestamps funasr joins the words
with single spaces instead, and a word's time spans its tokens'.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

DROPPED = ("<s>", "</s>", "<unk>", "<OOV>")
Span = list[int]  # [start_ms, end_ms]


def _bare(token: str) -> str:
    for mark in (" ", "</s>", "<s>", "<unk>", "<OOV>"):
        token = token.replace(mark, "")
    return token


def _chinese(s: str) -> bool:
    # String comparisons, as funasr makes them (a multi-character string compares by its first characters).
    return "\u4e00" <= s <= "\u9fff" or "0" <= s <= "9" or s == "@"


def all_chinese(tokens: Iterable[str]) -> bool:
    bare = [_bare(t) for t in tokens]
    return bool(bare) and all(_chinese(t) for t in bare)


def all_alpha(tokens: Iterable[str]) -> bool:
    bare = [_bare(t) for t in tokens]
    if not bare:
        return False
    return all((t.isalpha() or t == "'") and not (t.isalpha() and _chinese(t)) for t in bare)


@dataclass
class Words:
    """A window's text as funasr would print it, its words, and a time per word where there is one.

    Args:
        text: the words joined as funasr prints them without timestamps.
        words: the words (no separators).
        times: [start_ms, end_ms] per word, in order; may be shorter than `words` where funasr's
            timestamps are (a `<unk>` token shifts them, as it does in funasr).
    """

    text: str
    words: list[str]
    times: list[Span]


def _at(times: Sequence[Span] | None, i: int) -> Span | None:
    return list(times[i]) if times is not None and 0 <= i < len(times) else None


def _join(tokens: list[str], times: Sequence[Span] | None) -> tuple[list[str], list[Span]]:
    """funasr's word list (English words followed by a " " entry) and word times, before abbreviations."""
    if all_chinese(tokens):
        return [t.replace(" ", "") for t in tokens], [list(t) for t in times or []]
    words: list[str] = []
    spans: list[Span] = []
    piece, begin, end = "", -1, -1
    fresh = True  # the next token starts a word (its time is the word's start)
    mixed = not all_alpha(tokens)
    blank_after_alpha = False
    for i, token in enumerate(tokens):
        here = _at(times, i)
        if fresh and here is not None:
            begin, end = here
        if mixed and all_chinese(token):
            if blank_after_alpha:
                words.pop()
            words.append(token)
            blank_after_alpha = False
            if times is not None:
                fresh = True
                spans.append([begin, end])
                begin = end
        elif "@@" in token:
            piece += token.replace("@@", "")
            blank_after_alpha = False
            if times is not None:
                fresh = False
                end = here[1] if here is not None else end
        elif not mixed or all_alpha(token):
            piece += token
            words += [piece, " "]
            piece = ""
            blank_after_alpha = True
            if times is not None:
                fresh = True
                end = here[1] if here is not None else end
                spans.append([begin, end])
                begin = end
        else:
            words.append(token)
    return words, spans


def _letter(word: str) -> bool:
    return len(word) == 1 and word.encode("utf-8").isalpha()


def _abbreviations(words: list[str]) -> tuple[list[int], list[int]]:
    """Where runs of spaced single letters start and end (funasr's abbr_dispose scan)."""
    begins: list[int] = []
    ends: list[int] = []
    last = -1
    n = len(words)
    for start in range(n):
        if start <= last or not _letter(words[start]):
            continue
        if not (start + 2 < n and words[start + 1] == " " and _letter(words[start + 2])):
            continue
        begins.append(start)
        ends.append(start + 2)
        i = start + 2
        while True:  # more " " + letter pairs extend it
            i += 1
            if i < n and words[i] == " ":
                i += 1
                if i < n and _letter(words[i]):
                    ends[-1] = last = i
                    continue
            break
    return begins, ends


def _merge_abbreviations(words: list[str], times: list[Span] | None) -> tuple[list[str], list[Span]]:
    """Spaced single letters joined into one upper-case word, its time from its first to its last letter."""
    begins, ends = _abbreviations(words)
    slot = []  # per entry of `words`: the index of its time (spaces share the next word's)
    k = 0
    for word in words:
        slot.append(k)
        k += word != " "
    out: list[str] = []
    spans: list[Span] = []
    last = -1
    for i in range(len(words)):
        if i <= last:
            continue
        if i in begins:
            start = _at(times, slot[i])
            word = words[i].upper()
            j = i + 1
            while j < len(words):
                if j in ends:
                    word += words[j].upper()
                    last = j
                    break
                if words[j].encode("utf-8").isalpha():
                    word += words[j].upper()
                j += 1
            out.append(word)
            stop = _at(times, slot[j]) if j < len(words) else None
            if start is not None and stop is not None:
                spans.append([start[0], stop[1]])
        else:
            out.append(words[i])
            here = _at(times, slot[i])
            if here is not None and words[i] != " ":
                spans.append(here)
    return out, spans


def words_from_tokens(tokens: Sequence[str], times: Sequence[Span] | None = None) -> Words:
    """funasr's sentence_postprocess: the text, the words and (given token times) the word times."""
    kept = [t for t in tokens if t not in DROPPED]
    joined, spans = _join(kept, times)
    merged, spans = _merge_abbreviations(joined, spans if times is not None else None)
    return Words("".join(merged).strip(), [w for w in merged if w != " "], spans)
