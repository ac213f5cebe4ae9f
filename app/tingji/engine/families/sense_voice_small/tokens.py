"""SentencePiece detokenisation from an exported table, exactly as sentencepiece's DecodeIds does it.

The reference turns CTC token ids into text with `SentencePieceProcessor.
DecodeIds`. The engine must produce the same characters without depending
on the sentencepiece package, so the converter exports every piece with its
type (`tokens.json`) and this module applies sentencepiece's decoding rules:

* control pieces (<s>, </s>) are invisible; the unknown piece shows as the
  model's `unk_surface`;
* `▁` means a space, except that a leading `▁` of the first visible piece
  is dropped when the model adds a dummy prefix or removes extra spaces;
* runs of byte pieces (<0xE4><0xBD><0xA0>) are joined into UTF-8
  characters; a byte that starts no valid character becomes U+FFFD.

`surfaces` returns one string per id (what that piece contributes), so a
caller can drop some pieces - SenseVoice's <|tags|> - and keep exactly the
text the reference prints around them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ....errors import ModelError
from ... import messages

# SentencePiece piece types (sentencepiece_model.proto).
NORMAL = 1
UNKNOWN = 2
CONTROL = 3
USER_DEFINED = 4
UNUSED = 5
BYTE = 6
SPACE = "\u2581"
REPLACEMENT = "\ufffd"


@dataclass(frozen=True)
class PieceTable:
    """A SentencePiece vocabulary as decoding needs it: pieces by id, their types, the normaliser flags."""

    pieces: list[str]
    types: list[int]
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    unk_surface: str = " \u2047 "

    def __len__(self) -> int:
        return len(self.pieces)

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": "sentencepiece-pieces",
                "add_dummy_prefix": self.add_dummy_prefix,
                "remove_extra_whitespaces": self.remove_extra_whitespaces,
                "unk_surface": self.unk_surface,
                "pieces": [[p, t] for p, t in zip(self.pieces, self.types)],
            },
            ensure_ascii=False,
        )

    def byte_value(self, token: int) -> int:
        return int(self.pieces[token][3:-1], 16)  # "<0xE4>"

    def _piece_surface(self, token: int, at_start: bool) -> tuple[str, bool]:
        """A non-byte piece's text, and whether it consumed the leading space of the text."""
        kind = self.types[token]
        if kind == CONTROL:
            return "", False
        if kind == UNKNOWN:
            return self.unk_surface, False
        piece, consumed = self.pieces[token], False
        if at_start and (self.add_dummy_prefix or self.remove_extra_whitespaces) and piece.startswith(SPACE):
            piece, consumed = piece[1:], not self.remove_extra_whitespaces
        return piece.replace(SPACE, " "), consumed

    def surfaces(self, ids: Sequence[int]) -> list[str]:
        """What each id adds to the decoded text (sentencepiece's per-piece surfaces)."""
        out = [""] * len(ids)
        written = False  # has any text been produced yet
        at_start, consumed = True, False
        byte_start = 0
        for i, token in enumerate(ids):
            if self.types[token] == BYTE:
                continue
            written |= self._bytes(ids, byte_start, i, out)
            if consumed or written:
                at_start = False
            byte_start = i + 1
            out[i], consumed = self._piece_surface(token, at_start)
            written |= bool(out[i])
        self._bytes(ids, byte_start, len(ids), out)
        return out

    def _bytes(self, ids: Sequence[int], start: int, end: int, out: list[str]) -> bool:
        """Surfaces of the byte pieces ids[start:end]: each character on its last byte; True if any."""
        raw = bytes(self.byte_value(ids[i]) for i in range(start, end))
        offset = 0
        while offset < len(raw):
            size = _utf8_length(raw, offset)
            if size == 0:
                out[start + offset] = REPLACEMENT
                offset += 1
                continue
            out[start + offset + size - 1] = raw[offset : offset + size].decode("utf-8")
            offset += size
        return end > start

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.surfaces(ids))


def _utf8_length(raw: bytes, offset: int) -> int:
    """Bytes of the valid UTF-8 character starting at `offset`, 0 when none starts there."""
    lead = raw[offset]
    size = (
        1
        if lead < 0x80
        else 2
        if 0xC2 <= lead <= 0xDF
        else 3
        if 0xE0 <= lead <= 0xEF
        else 4
        if 0xF0 <= lead <= 0xF4
        else 0
    )
    if size == 0 or offset + size > len(raw):
        return 0
    try:
        raw[offset : offset + size].decode("utf-8")
    except UnicodeDecodeError:
        return 0
    return size


def load_pieces(path: Path) -> PieceTable:
    """Read `tokens.json` as the converter wrote it; a bad file is one ModelError naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pieces = [str(p) for p, _ in data["pieces"]]
        types = [int(t) for _, t in data["pieces"]]
        table = PieceTable(
            pieces,
            types,
            bool(data["add_dummy_prefix"]),
            bool(data["remove_extra_whitespaces"]),
            str(data["unk_surface"]),
        )
        for i, kind in enumerate(types):
            if kind == BYTE:
                table.byte_value(i)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise ModelError(messages.TOKEN_TABLE_UNREADABLE, path=path, reason=f"{type(exc).__name__}: {exc}") from None
    return table
