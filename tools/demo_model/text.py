"""The demo model's text side: its tokenizer, the CTC ids of its words, the prompt's ids, word error rate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .recipe import DIGITS, VOCAB


def build_tokenizer(vocab_size: int):
    """make_tiny_checkpoint's byte-level Qwen-style BPE, trained with the demo vocabulary added.

    Every vocabulary word must be one token, both at the start ("hello") and
    after a space (" hello"): one token per word keeps targets short and lets
    the CTC head emit whole words at its 60 ms frame rate.
    """
    import make_tiny_checkpoint as mtc
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    rotations = [" ".join(VOCAB[i:] + VOCAB[:i]) for i in range(len(VOCAB))]
    demo_lines = rotations * 20
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(mtc.QWEN_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=1,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tok.train_from_iterator(mtc.training_corpus() + demo_lines, trainer=trainer)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in mtc.SPECIAL_TOKENS])
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in mtc.PLAIN_ADDED_TOKENS])
    for word in VOCAB:
        for form in (word, " " + word):
            if len(tok.encode(form).ids) != 1:
                raise RuntimeError(f"tokenizer splits {form!r}; raise Dims.bpe_vocab")
    return tok


def ctc_word_ids(tiktoken_text: str) -> dict[str, int]:
    """CTC output id of " word" for each vocabulary word, read from multilingual.tiktoken."""
    import base64

    rank = {base64.b64decode(tok): int(r) for tok, r in (line.split() for line in tiktoken_text.splitlines())}
    return {w: rank[(" " + w).encode()] for w in VOCAB}


def normalise_words(text: str) -> list[str]:
    """Lower-case words without punctuation; numerals spelt out (an ITN-style output still scores)."""
    import re

    text = re.sub(r"\d", lambda m: f" {DIGITS[int(m.group())]} ", text.lower())
    return re.sub(r"[^\w\s']", " ", text).split()


def edit_distance(ref: Sequence[str], hyp: Sequence[str]) -> int:
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1]


def wer(refs: Sequence[str], hyps: Sequence[str]) -> float:
    errors = sum(edit_distance(normalise_words(r), normalise_words(h)) for r, h in zip(refs, hyps))
    return errors / max(1, sum(len(normalise_words(r)) for r in refs))


@dataclass
class TextSide:
    """Token ids the losses need, computed once."""

    before: list[int]
    after: list[int]
    im_end: int
    ctc_ids: dict[str, int]
    blank: int
    pack_ids: list[int]  # the CTC ids training computes: the words, then blank

    def target(self, tok, text: str) -> list[int]:
        # As the reference's data_load_speech: the target text then <|im_end|>, tokenised on its own.
        return tok.encode(text + "<|im_end|>").ids

    def ctc_target(self, text: str) -> list[int]:
        """Targets as positions in `pack_ids` (the CTC ids training computes logits for)."""
        return [VOCAB.index(w) for w in text.split()]
