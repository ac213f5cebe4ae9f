"""What an export can be asked for: the encoder's precision and the decoder's GGUF type.

The one list of each, read by the converters (`onnx_tools`, `gguf_tools`),
`export_model`'s checks and `tingji export-model`'s choices. A module of its
own that imports nothing, so that the CLI offers them without loading torch.
"""

from __future__ import annotations

PRECISIONS = ("fp32", "fp16", "int8")  # the ONNX encoders' weights
QUANTS = ("f32", "f16", "q8_0", "q5_k")  # the GGUF decoder's tensors
