"""Static checks that an exported graph will run on ONNX Runtime's DirectML provider.

What DirectML users hit in practice (see the seeds): Reshape fed by a Range
(`arange(T).view(...)`), shapes computed from tensor *values*, boolean inputs
to Conv, recurrent and control-flow operators, operators whose output shape
depends on values (NonZero, ScatterND), float64 tensors, and operators the
provider does not implement (which silently fall back to the CPU, copying
every tensor across). The fixed-shape graph must also be fully static so one compiled
kernel set serves every call.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import onnx
from onnx import numpy_helper, shape_inference

# Operators of the default ONNX domain that the DirectML execution provider
# implements (ONNX Runtime's DmlExecutionProvider kernel list, opsets <= 18).
DML_OPS = frozenset(
    """
Abs Acos Acosh Add And ArgMax ArgMin Asin Asinh Atan Atanh AveragePool BatchNormalization BitShift
BitwiseAnd BitwiseNot BitwiseOr BitwiseXor Cast CastLike Ceil Celu Clip Col2Im Concat Constant
ConstantOfShape Conv ConvInteger ConvTranspose Cos Cosh CumSum DepthToSpace DequantizeLinear Div
DynamicQuantizeLinear Einsum Elu Equal Erf Exp Expand EyeLike Flatten Floor Gather GatherElements
GatherND Gemm GlobalAveragePool GlobalLpPool GlobalMaxPool Greater GreaterOrEqual GridSample
HardSigmoid HardSwish Hardmax Identity InstanceNormalization IsInf IsNaN LRN LayerNormalization
LeakyRelu Less LessOrEqual Log LogSoftmax LpNormalization LpPool MatMul MatMulInteger Max MaxPool
MaxRoiPool MaxUnpool Mean MeanVarianceNormalization Min Mod Mul Neg NonZero Not OneHot Or PRelu
Pad Pow QLinearConv QLinearMatMul QuantizeLinear Range Reciprocal ReduceL1 ReduceL2 ReduceLogSum
ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum ReduceSumSquare Relu Reshape
Resize ReverseSequence RoiAlign Round ScatterElements ScatterND Selu Shape Shrink Sigmoid Sign Sin
Sinh Size Slice Softmax Softplus Softsign SpaceToDepth Split Sqrt Squeeze Sub Sum Tan Tanh
ThresholdedRelu Tile TopK Transpose Trilu Unsqueeze Upsample Where Xor
""".split()
)
# com.microsoft operators the DirectML provider implements (what quantisation and fusion emit).
DML_MS_OPS = frozenset(
    """
Attention BiasAdd BiasGelu BiasSplitGelu DequantizeLinear DynamicQuantizeMatMul FastGelu FusedMatMul
Gelu GroupNorm MatMulIntegerToFloat MultiHeadAttention NhwcConv QLinearAdd QLinearSigmoid
QuantizeLinear QuickGelu RotaryEmbedding SkipLayerNormalization
""".split()
)
FORBIDDEN = frozenset({"LSTM", "GRU", "RNN", "Loop", "If", "Scan"})
# Implemented, but what they output (or where they write) depends on tensor values: every run syncs
# the GPU with the CPU and reallocates (funasr's own Paraformer export puts CIF in such operators).
VALUE_SHAPED = frozenset({"NonZero", "ScatterND", "Compress", "Unique"})
# Inputs that are shapes, sizes or axes: they must not depend on tensor values.
SHAPE_INPUTS = {
    "Reshape": (1,),
    "Expand": (1,),
    "Tile": (1,),
    "ConstantOfShape": (0,),
    "Slice": (1, 2, 3, 4),
    "Pad": (1,),
    "Resize": (2, 3),
    "Upsample": (1,),
    "TopK": (1,),
    "Range": (0, 1, 2),
    "OneHot": (1,),
    "Unsqueeze": (1,),
    "Squeeze": (1,),
    "Split": (1,),
    "ReduceSum": (1,),
    "ReduceMean": (1,),
    "ReduceMax": (1,),
    "ReduceMin": (1,),
}


@dataclass(frozen=True)
class Problem:
    node: str
    message: str

    def __str__(self) -> str:
        return f"{self.node}: {self.message}"


def _producers(graph: onnx.GraphProto) -> dict[str, onnx.NodeProto]:
    return {out: node for node in graph.node for out in node.output}


def _value_dependent(name: str, producers: dict[str, onnx.NodeProto], inputs: set[str], memo: dict[str, bool]) -> bool:
    """Does tensor `name` depend on the *values* of a graph input (not only on its shape)?"""
    if name in memo:
        return memo[name]
    memo[name] = False  # cycle guard
    if name in inputs:
        memo[name] = True
        return True
    node = producers.get(name)
    if node is None or node.op_type in ("Shape", "Size", "Constant", "ConstantOfShape"):
        # ConstantOfShape's output values are its attribute: only its shape depends on input 0.
        return False
    result = any(_value_dependent(i, producers, inputs, memo) for i in node.input if i)
    memo[name] = result
    return result


def _feeds_reshape_shape(start: str, graph: onnx.GraphProto) -> bool:
    consumers: dict[str, list[tuple[onnx.NodeProto, int]]] = {}
    for node in graph.node:
        for idx, name in enumerate(node.input):
            consumers.setdefault(name, []).append((node, idx))
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for node, idx in consumers.get(name, []):
            if node.op_type == "Reshape" and idx == 1:
                return True
            todo.extend(node.output)
    return False


def _allowzero_with_infer(node: onnx.NodeProto, graph: onnx.GraphProto) -> bool:
    """A Reshape with allowzero=1 whose constant shape holds a -1 (onnx_tools.plain_reshapes removes them)."""
    if not any(a.name == "allowzero" and a.i == 1 for a in node.attribute) or len(node.input) < 2:
        return False
    shape = next((t for t in graph.initializer if t.name == node.input[1]), None)
    if shape is None:
        shape = next(
            (a.t for n in graph.node if n.op_type == "Constant" and n.output[0] == node.input[1] for a in n.attribute),
            None,
        )
    return shape is not None and -1 in numpy_helper.to_array(shape).tolist()


def lint_directml(path: str | Path, *, require_static: bool = False) -> list[Problem]:
    """Problems that would stop or slow the graph on DirectML; empty when clean."""
    model = onnx.load(str(path), load_external_data=False)
    graph = model.graph
    problems: list[Problem] = []
    producers = _producers(graph)
    inputs = {i.name for i in graph.input} - {t.name for t in graph.initializer}
    memo: dict[str, bool] = {}
    try:
        inferred = shape_inference.infer_shapes(model, strict_mode=False)
    except Exception as exc:  # shape inference failing is itself a red flag
        problems.append(Problem("graph", f"shape inference failed: {exc}"))
        inferred = model
    types = {
        v.name: v.type.tensor_type
        for v in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output)
    }

    for node in graph.node:
        label = f"{node.op_type}({node.name or node.output[0]})"
        domain = node.domain or ""
        if node.op_type in FORBIDDEN:
            problems.append(Problem(label, "recurrent/control-flow operator DirectML cannot run well"))
        elif node.op_type in VALUE_SHAPED:
            problems.append(Problem(label, "output shape or writes depend on tensor values"))
        elif domain in ("", "ai.onnx") and node.op_type not in DML_OPS:
            problems.append(Problem(label, "operator not implemented by the DirectML provider"))
        elif domain == "com.microsoft" and node.op_type not in DML_MS_OPS:
            problems.append(Problem(label, "contrib operator not implemented by the DirectML provider"))
        elif domain not in ("", "ai.onnx", "com.microsoft"):
            problems.append(Problem(label, f"custom domain {domain!r}"))
        if node.op_type == "Range" and _feeds_reshape_shape(node.output[0], graph):
            problems.append(Problem(label, "Range feeds a Reshape shape (arange(...).view pattern)"))
        for idx in SHAPE_INPUTS.get(node.op_type, ()):
            if idx < len(node.input) and node.input[idx] and _value_dependent(node.input[idx], producers, inputs, memo):
                problems.append(Problem(label, f"input {idx} (a shape/size) is computed from tensor values"))
        if node.op_type == "Reshape" and _allowzero_with_infer(node, graph):
            problems.append(Problem(label, "allowzero=1 with -1 in the shape (DirectML: invalid parameter)"))
        if node.op_type in ("Conv", "ConvTranspose"):
            t = types.get(node.input[0])
            if t is not None and t.elem_type == onnx.TensorProto.BOOL:
                problems.append(Problem(label, "boolean input to Conv"))
        if any(types[o].elem_type == onnx.TensorProto.DOUBLE for o in node.output if o in types):
            problems.append(Problem(label, "float64 tensor (DirectML has no float64 kernels: CPU fallback)"))
    for tensor in graph.initializer:
        if tensor.data_type == onnx.TensorProto.DOUBLE:
            problems.append(Problem(tensor.name, "float64 initializer"))

    if require_static:
        for value in list(inferred.graph.input) + list(inferred.graph.output) + list(inferred.graph.value_info):
            tt = value.type.tensor_type
            if not tt.HasField("shape"):
                problems.append(Problem(value.name, "tensor without a known shape"))
                continue
            if any(not d.HasField("dim_value") for d in tt.shape.dim):
                problems.append(Problem(value.name, "dynamic dimension in the fixed-shape graph"))
        for node in graph.node:
            if node.op_type in ("Shape", "Size"):
                problems.append(Problem(f"{node.op_type}({node.name})", "runtime shape query in the fixed-shape graph"))
    return problems
