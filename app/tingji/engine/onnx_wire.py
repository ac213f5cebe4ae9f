"""ONNX's protobuf at the wire level: read a graph's fields and write new ones, without the `onnx` package.

The Windows build has no `onnx`, and a graph's weights (inside the file or
beside it) must never be decoded, so the rewrites in `ort_compat` walk the
encoded ModelProto field by field and copy every byte they do not change.
Only the parts of onnx.proto those rewrites read are named here.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# ONNX's TensorProto.DataType values used here.
FLOAT = 1
INT64 = 7
DOUBLE = 11
# Field numbers of onnx.proto's messages (stable parts of the format).
MODEL_GRAPH = 7
MODEL_OPSET = 8
OPSET_DOMAIN = 1
OPSET_VERSION = 2
GRAPH_NODE = 1
GRAPH_INITIALIZER = 5
GRAPH_INPUT = 11
GRAPH_OUTPUT = 12
GRAPH_VALUE_INFO = 13
NODE_INPUT = 1
NODE_OUTPUT = 2
NODE_NAME = 3
NODE_OP = 4
NODE_ATTRIBUTE = 5
NODE_DOMAIN = 7
ATTR_NAME = 1
ATTR_F = 2
ATTR_I = 3
ATTR_INTS = 8
ATTR_TYPE = 20
ATTR_FLOAT = 1
ATTR_INT = 2
ATTR_INTS_TYPE = 7
TENSOR_DIMS = 1
TENSOR_TYPE = 2
TENSOR_NAME = 8
TENSOR_RAW = 9
VALUE_NAME = 1
VALUE_TYPE = 2
TYPE_TENSOR = 1
TENSOR_ELEM = 1
TENSOR_SHAPE = 2
SHAPE_DIM = 1


def varint(buf: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(buf: memoryview) -> Iterator[tuple[int, int, Any, int, int]]:
    """(field number, wire type, value, start, end) of each field of one encoded message."""
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos : pos + 8], pos + 8
        elif wire == 2:
            size, pos = varint(buf, pos)
            value, pos = buf[pos : pos + size], pos + size
        elif wire == 5:
            value, pos = buf[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value, start, pos


def encode_varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64s as protobuf writes them
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def tag(number: int, wire: int) -> bytes:
    return encode_varint(number << 3 | wire)


def bytes_field(number: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return tag(number, 2) + encode_varint(len(data)) + data


def int_field(number: int, value: int) -> bytes:
    return tag(number, 0) + encode_varint(value)


def signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def tensor_bytes(name: str, values: np.ndarray, data_type: int) -> bytes:
    dims = b"".join(int_field(TENSOR_DIMS, d) for d in values.shape)
    return (
        dims
        + int_field(TENSOR_TYPE, data_type)
        + bytes_field(TENSOR_NAME, name)
        + bytes_field(TENSOR_RAW, values.tobytes())
    )


def attribute_bytes(name: str, value: int | float | list[int]) -> bytes:
    head = bytes_field(ATTR_NAME, name)
    if isinstance(value, list):
        body = b"".join(int_field(ATTR_INTS, v) for v in value)
        return head + body + int_field(ATTR_TYPE, ATTR_INTS_TYPE)
    if isinstance(value, float):
        return head + tag(ATTR_F, 5) + struct.pack("<f", value) + int_field(ATTR_TYPE, ATTR_FLOAT)
    return head + int_field(ATTR_I, value) + int_field(ATTR_TYPE, ATTR_INT)


def node_field(op: str, inputs: Sequence[str], outputs: Sequence[str], name: str, **attributes: Any) -> bytes:
    body = b"".join(bytes_field(NODE_INPUT, i) for i in inputs)
    body += b"".join(bytes_field(NODE_OUTPUT, o) for o in outputs)
    body += bytes_field(NODE_NAME, name) + bytes_field(NODE_OP, op)
    body += b"".join(bytes_field(NODE_ATTRIBUTE, attribute_bytes(k, v)) for k, v in attributes.items())
    return bytes_field(GRAPH_NODE, body)


@dataclass
class Node:
    """The parts of a NodeProto the rewrite reads."""

    op: str
    domain: str
    inputs: list[str]
    outputs: list[str]
    name: str
    attributes: dict[str, Any]


def read_node(buf: memoryview) -> Node:
    node = Node("", "", [], [], "", {})
    for number, _, value, _, _ in fields(buf):
        if number == NODE_INPUT:
            node.inputs.append(bytes(value).decode())
        elif number == NODE_OUTPUT:
            node.outputs.append(bytes(value).decode())
        elif number == NODE_NAME:
            node.name = bytes(value).decode()
        elif number == NODE_OP:
            node.op = bytes(value).decode()
        elif number == NODE_DOMAIN:
            node.domain = bytes(value).decode()
        elif number == NODE_ATTRIBUTE:
            name, found = "", None
            for a_number, _, a_value, _, _ in fields(value):
                if a_number == ATTR_NAME:
                    name = bytes(a_value).decode()
                elif a_number == ATTR_F:
                    found = struct.unpack("<f", a_value)[0]
                elif a_number == ATTR_I:
                    found = signed(a_value)
            node.attributes[name] = found
    return node


def value_info(buf: memoryview) -> tuple[str, int | None, int | None]:
    """(name, element type, rank) of a ValueInfoProto; None where it does not say."""
    name, elem, rank = "", None, None
    for number, _, value, _, _ in fields(buf):
        if number == VALUE_NAME:
            name = bytes(value).decode()
        elif number == VALUE_TYPE:
            for t_number, _, t_value, _, _ in fields(value):
                if t_number != TYPE_TENSOR:
                    continue
                for s_number, _, s_value, _, _ in fields(t_value):
                    if s_number == TENSOR_ELEM:
                        elem = s_value
                    elif s_number == TENSOR_SHAPE:
                        rank = sum(1 for d in fields(s_value) if d[0] == SHAPE_DIM)
    return name, elem, rank


def tensor_name_type(buf: memoryview) -> tuple[str, int | None]:
    name, elem = "", None
    for number, _, value, _, _ in fields(buf):
        if number == TENSOR_NAME:
            name = bytes(value).decode()
        elif number == TENSOR_TYPE:
            elem = value
    return name, elem


class GraphInfo:
    """What the rewrite needs to know about a graph: element types, ranks and names in use."""

    def __init__(self, buf: memoryview) -> None:
        self.types: dict[str, int] = {}
        self.ranks: dict[str, int] = {}
        self.names: set[str] = set()
        for number, _, value, _, _ in fields(buf):
            if number in (GRAPH_INPUT, GRAPH_OUTPUT, GRAPH_VALUE_INFO):
                name, elem, rank = value_info(value)
                self.names.add(name)
                if elem:
                    self.types[name] = elem
                if rank is not None:
                    self.ranks[name] = rank
            elif number == GRAPH_INITIALIZER:
                name, elem = tensor_name_type(value)
                self.names.add(name)
                if elem:
                    self.types[name] = elem
            elif number == GRAPH_NODE:
                node = read_node(value)
                self.names.update(node.inputs + node.outputs + [node.name])
                if node.op == "Cast" and node.domain in ("", "ai.onnx") and node.attributes.get("to"):
                    self.types[node.outputs[0]] = int(node.attributes["to"])

    def fresh(self, base: str) -> str:
        name = base
        while name in self.names:
            name += "_"
        self.names.add(name)
        return name


def value_info_bytes(name: str, elem: int | None = None) -> bytes:
    """An encoded ValueInfoProto: a tensor called `name` of element type `elem` (FLOAT when not known), any shape."""
    tensor_type = int_field(TENSOR_ELEM, elem or FLOAT)
    return bytes_field(VALUE_NAME, name) + bytes_field(VALUE_TYPE, bytes_field(TYPE_TENSOR, tensor_type))
