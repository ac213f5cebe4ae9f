"""Reading a SentencePiece model file (`*.bpe.model`) without the sentencepiece package.

The converter needs from SenseVoice's tokenizer every piece with its type
(normal, control, byte, user-defined tag ...) and the few normaliser
settings that change how pieces turn back into text: the engine's
`PieceTable`, which it exports and detokenises from, so neither side
depends on the sentencepiece package. The file is a protobuf `ModelProto`; this reads its
wire format directly (pieces = field 1, trainer spec = 2, normaliser spec =
3, denormaliser spec = 5) and refuses what the engine's decoder does not
reproduce.
"""

from __future__ import annotations

from pathlib import Path

from ...engine.families.sense_voice_small.tokens import BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED, PieceTable
from ...errors import ModelError
from .. import messages

DEFAULT_UNK_SURFACE = " \u2047 "


def _fields(data: bytes) -> list[tuple[int, int, object]]:
    """(field number, wire type, value) of one protobuf message; ValueError when it is not one."""
    out, pos, end = [], 0, len(data)

    def varint() -> int:
        nonlocal pos
        shift = value = 0
        while True:
            if pos >= end or shift > 63:
                raise ValueError("truncated varint")
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while pos < end:
        key = varint()
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError("field number 0")
        if wire == 0:
            value: object = varint()
        elif wire == 1 or wire == 5:
            size = 8 if wire == 1 else 4
            if pos + size > end:
                raise ValueError("truncated fixed-size field")
            value = data[pos : pos + size]
            pos += size
        elif wire == 2:
            size = varint()
            if pos + size > end:
                raise ValueError("truncated field")
            value = data[pos : pos + size]
            pos += size
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.append((number, wire, value))
    return out


def _bool_field(fields: list[tuple[int, int, object]], number: int, default: bool) -> bool:
    values = [v for n, w, v in fields if n == number and w == 0]
    return bool(values[-1]) if values else default


def parse_model(data: bytes) -> PieceTable:
    """The pieces and decoding settings of a serialized SentencePiece ModelProto."""
    pieces: list[str] = []
    types: list[int] = []
    normalizer: list[tuple[int, int, object]] = []
    trainer: list[tuple[int, int, object]] = []
    for number, wire, value in _fields(data):
        if number == 1 and wire == 2:
            sub = _fields(value)  # type: ignore[arg-type]
            text = [v for n, w, v in sub if n == 1 and w == 2]
            if not text:
                raise ValueError("a piece without text")
            pieces.append(bytes(text[-1]).decode("utf-8"))  # type: ignore[arg-type]
            kinds = [v for n, w, v in sub if n == 3 and w == 0]
            types.append(int(kinds[-1]) if kinds else NORMAL)  # type: ignore[arg-type]
        elif number == 2 and wire == 2:
            trainer = _fields(value)  # type: ignore[arg-type]
        elif number == 3 and wire == 2:
            normalizer = _fields(value)  # type: ignore[arg-type]
        elif number == 5 and wire == 2:
            rules = [v for n, w, v in _fields(value) if n in (2, 6) and w == 2 and v]  # type: ignore[arg-type]
            if rules:
                raise ValueError("it has denormalisation rules, which Tingji does not apply")
    if not pieces:
        raise ValueError("no pieces")
    if any(t not in (NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE) for t in types):
        raise ValueError("unknown piece type")
    if _bool_field(trainer, 24, False):
        raise ValueError("treat_whitespace_as_suffix is set, which Tingji does not decode")
    surface = [v for n, w, v in trainer if n == 44 and w == 2]
    return PieceTable(
        pieces=pieces,
        types=types,
        add_dummy_prefix=_bool_field(normalizer, 3, True),
        remove_extra_whitespaces=_bool_field(normalizer, 4, True),
        unk_surface=bytes(surface[-1]).decode("utf-8") if surface else DEFAULT_UNK_SURFACE,  # type: ignore[arg-type]
    )


def read_model(path: Path) -> PieceTable:
    """`parse_model` of a file; any problem is one ModelError naming the file."""
    try:
        return parse_model(path.read_bytes())
    except OSError as exc:
        raise ModelError(messages.BPE_UNREADABLE, path=path, reason=exc.strerror or exc) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ModelError(messages.NOT_SENTENCEPIECE, path=path, reason=exc) from None
