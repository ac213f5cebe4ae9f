"""Whether int8 matrix products are fast on this CPU: the choice of a model's int8 CPU graph (issue 45).

ONNX Runtime picks its u8 x s8 MatMul kernel once, from CPUID. With AVX512-VNNI,
AVX-VNNI or AMX the products are summed in int32 by one instruction and int8
runs well ahead of fp32; on AVX2 alone (and AVX-512 without VNNI) each pair of
products is first added into a saturating int16 (vpmaddubsw), a slower path
with no gain to speak of. Rather than read CPU flags, which Windows does not
list and which are not what ONNX Runtime decides on, one tiny MatMulInteger
whose pairs overflow int16 is run: an exact answer means the int32 kernel.
Only x86 is answered yes: int8 was measured faster there, and an ARM CPU's
int8 kernels (exact too) were not measured.
"""

from __future__ import annotations

import platform
from functools import lru_cache

import numpy as np

X86 = ("x86_64", "amd64", "i386", "i686", "x86")
_K = 64  # products per output: 255 x 127 each, pairs of 64,770 overflow int16
EXACT = 255 * 127 * _K


def int8_sums() -> int:
    """255 x 127 summed over `_K` products by ONNX Runtime's MatMulInteger on this process's kernel."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    weights = numpy_helper.from_array(np.full((_K, 4), 127, np.int8), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "w"], ["y"])],
        "int8_kernel",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [4, _K])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [4, 4])],
        [weights],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"a": np.full((4, _K), 255, np.uint8)})
    return int(y.max())


@lru_cache(maxsize=1)
def fast_int8() -> bool:
    """True on an x86 CPU whose int8 products ONNX Runtime sums in int32 (VNNI or AMX); asked once a process."""
    if platform.machine().lower() not in X86:
        return False
    try:
        return int8_sums() == EXACT
    except Exception:  # no answer is no: the fp32 graph is always right, only slower
        return False
