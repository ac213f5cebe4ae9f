"""Model manager: download, install, import, verify and remove speech models.

This `__init__` is the package's public front; every other module exports
only what it defines:

- `download.download`: one file from mirrors, resumable, verified (stdlib only);
  one ranged GET is `http_range`, free-space checks and sizes `diskspace`.
- `archive.extract`: safe .zip/.tar extraction.
- `catalog.load_catalog`: known downloadable models (`assets/models.json`) and
  the hashes pinned in the user's overrides.
- `store`: installing models under `paths.models_dir()` (from a folder, a URL
  or the catalog); `staging` makes each install one atomic rename.
- `installed`: the installed folders (list, resolve, verify, remove, overview);
  `cache`: partial downloads kept for resuming.
- `peer`: adopting a CapsWriter / Fun-ASR-GGUF release (`peer_graph` reads it,
  `peer_contract` checks it).

The `tingji models` command is `tingji.cli.models`.
"""

from .download import DownloadResult, NotFound
from .installed import InstalledModel, list_models, remove, resolve_model, verify
from .staging import cleanup_incoming
from .store import InstallResult, download_catalog_model, import_folder, install_from_url

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
