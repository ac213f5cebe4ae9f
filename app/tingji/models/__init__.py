"""Model manager: download, install, import, verify and remove speech models.

- `download.download` (the module is not shadowed: import it from
  `tingji.models.download`): one file from mirrors, resumable, verified (stdlib only);
  one ranged GET is `http_range`, free-space checks `diskspace`.
- `archive.extract`: safe .zip/.tar extraction.
- `catalog.load_catalog`: known downloadable models (`assets/models.json`).
- `store`: installing models under `paths.models_dir()`; re-exports `installed`
  (list, resolve, verify, remove), `staging` (atomic installs) and `cache`.
- `peer`: adopting a CapsWriter / Fun-ASR-GGUF release (`peer_graph` reads it,
  `peer_contract` checks it).

The `tingji models` command is `tingji.cli.models`.
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
