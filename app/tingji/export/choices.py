"""What an export can be asked for: the decoder's GGUF type (and, beside it, the encoder's precision).

The one list of GGUF types, read by the converters (`gguf_tools`), `export_model`'s checks and
`tingji export-model`'s choices. A module of its own that imports nothing, so that the CLI offers them
without loading torch. The encoder precisions are `engine.families.kit.PRECISIONS`: a manifest names
them too, and the engine imports nothing from the exporter.
"""

from __future__ import annotations

QUANTS = ("f32", "f16", "q8_0", "q5_k")  # the GGUF decoder's tensors
