"""Import every module of the tingji package (Windows side); print one JSON line of what failed.

The exporter (tingji.export) needs the `export` extra (torch, onnx), which a Windows install does
not have: its modules may fail only with an ImportError naming one of those packages.
"""

import importlib
import json
import pkgutil
import sys
import traceback

EXPORT_EXTRA = {"torch", "onnx", "onnxscript", "gguf", "yaml", "tokenizers"}


def main() -> None:
    import tingji

    modules = pkgutil.walk_packages(tingji.__path__, "tingji.")
    names = sorted(m.name for m in modules if not m.name.endswith("__main__"))
    failed, extra_only = {}, []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as e:
            missing = getattr(e, "name", None)
            if name.startswith("tingji.export") and isinstance(e, ImportError) and missing in EXPORT_EXTRA:
                extra_only.append(name)
                continue
            failed[name] = "".join(traceback.format_exception_only(type(e), e)).strip()
    print(json.dumps({"modules": len(names), "failed": failed, "export_extra": extra_only, "file": tingji.__file__}))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
