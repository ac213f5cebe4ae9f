"""Model manager: download, install, import, verify and remove speech models.

- `download.download` (the module is not shadowed: import it from
  `tingji.models.download`): one file from mirrors, resumable, verified (stdlib only).
- `archive.extract`: safe .zip/.tar extraction.
- `catalog.load_catalog`: known downloadable models (`assets/models.json`).
- `store`: installed models under `paths.models_dir()`.
- `cli`: the `tingji models` command.
"""

from .download import DownloadResult, NotFound
from .store import (
    InstalledModel,
    InstallResult,
    cleanup_incoming,
    download_catalog_model,
    import_folder,
    install_from_url,
    list_models,
    remove,
    resolve_model,
    verify,
)

__all__ = [
    "DownloadResult",
    "InstallResult",
    "InstalledModel",
    "NotFound",
    "cleanup_incoming",
    "download_catalog_model",
    "import_folder",
    "install_from_url",
    "list_models",
    "remove",
    "resolve_model",
    "verify",
]
