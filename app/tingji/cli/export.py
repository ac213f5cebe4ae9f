"""`tingji export-model`: an official checkpoint folder in, a Tingji model folder out."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..engine.families.kit import PRECISIONS
from ..export.choices import QUANTS


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "export-model",
        help="convert an official model checkpoint into a Tingji model folder",
        description="Convert an official checkpoint folder into a Tingji model folder; the model family "
        'is recognised from the checkpoint\'s own config. Needs the export extra: pip install "tingji[export]".',
    )
    p.add_argument("--source", required=True, help="official checkpoint folder")
    p.add_argument("--out", required=True, help="model folder to create")
    p.add_argument(
        "--family",
        default=None,
        metavar="NAME",
        help="model family of the checkpoint (default: recognised from the checkpoint)",
    )
    p.add_argument(
        "--precision",
        choices=PRECISIONS,
        help="graph precision (default fp32; CAM++: int8 beside fp32)",
    )
    p.add_argument("--decoder-quant", default="f16", choices=QUANTS, help="decoder GGUF type")
    p.add_argument("--no-fixed", action="store_true", help="skip the fixed-shape encoder used by DirectML")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..export import messages as export_messages
    from ..export.extra import needs_export_extra

    with needs_export_extra(export_messages.EXTRA_FOR_EXPORT):
        from ..export import export_model

        export_model(
            args.source,
            args.out,
            family=args.family,
            precision=args.precision,
            decoder_quant=args.decoder_quant,
            fixed=not args.no_fixed,
            progress=lambda msg: print(f"export: {msg}", file=sys.stderr),
        )
    print(args.out)
    return 0
