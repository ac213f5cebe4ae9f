"""What the model manager says when something goes wrong: one constant per message (see tingji/errors.py)."""

from __future__ import annotations

from ..errors import Message

# -- installed models (installed.py, staging.py, store.py) --------------------------------------
BAD_NAME = Message(
    "models.bad_name",
    "bad model name {name!r}: use letters, digits, '.', '_' or '-' (at most 64, not starting with '.')",
)
NO_SUCH_MODEL = Message(
    "models.no_such_model", "no model named {name}; installed: {installed} (see `tingji models list`)"
)
NO_MODELS = Message("models.no_models", "no model named {name}; no models are installed (see `tingji models list`)")
NOT_A_MODEL_FOLDER = Message("models.not_a_model_folder", "{path}: not a Tingji model folder (no manifest.json)")
CANNOT_REMOVE = Message("models.cannot_remove", "cannot remove {name}: {reason} (is it in use?)")
ALREADY_INSTALLED = Message(
    "models.already_installed",
    "a model named {name} is already installed (remove it first: `tingji models remove {name}`)",
)
CANNOT_INSTALL = Message("models.cannot_install", "cannot install {name} into {folder}: {reason}")
CANNOT_LOAD = Message("models.cannot_load", "{path}: cannot be loaded ({reason})")
LINK_OUTSIDE = Message("models.link_outside", "{path}: a link to {target}, outside the folder; not importing it")
FILE_MISSING = Message("models.file_missing", "{folder}: file {file} is missing")
FOLDER_NOT_FOUND = Message("models.folder_not_found", "{folder}: folder not found")
NOT_AN_ARCHIVE_DOWNLOAD = Message(
    "models.not_an_archive_download", "{name}: not a .zip or .tar archive (a model is a folder of several files)"
)
NO_MIRRORS = Message("models.no_mirrors", "{name}: the catalog lists no per-file mirrors")
ARCHIVE_LACKS = Message("models.archive_lacks", "{name}: the archive lacks {file}")
ARCHIVE_FILE_HASH = Message("models.archive_file_hash", "{name}: {file} fails its SHA-256 check")
COULD_NOT_DOWNLOAD = Message("models.could_not_download", "{name}: could not download ({reasons})")
NO_WHOLE_MIRROR = Message(
    "models.no_whole_mirror",
    "{name}: no mirror served every file ({reasons}); files of two mirrors are never mixed in one install",
)
NO_DISK_SPACE = Message("models.no_disk_space", "not enough disk space: need {need}, {free} free in {folder}")

# -- the catalog (catalog.py) -------------------------------------------------------------------
UNKNOWN_CATALOG_MODEL = Message("catalog.unknown_model", "no downloadable model named {name!r}; known: {known}")
CATALOG_NOT_FOUND = Message("catalog.not_found", "{path}: model catalog not found")
CATALOG_UNREADABLE = Message("catalog.unreadable", "{path}: unreadable model catalog ({reason})")
CATALOG_NOT_OBJECT = Message("catalog.not_object", "{path}: model catalog is not a JSON object")
CATALOG_NEWER = Message("catalog.newer", "{path}: catalog made by a newer Tingji (format {format})")
CATALOG_ENTRY_NO_NAME = Message("catalog.entry_no_name", "{path}: catalog entry without a name")
OVERRIDES_UNREADABLE = Message(
    "catalog.overrides_unreadable", "{path}: unreadable catalog overrides ({reason}); fix or delete it"
)
OVERRIDES_NOT_OBJECT = Message(
    "catalog.overrides_not_object", "{path}: catalog overrides are not a JSON object; fix or delete it"
)
CATALOG_BAD_HASH = Message("catalog.bad_hash", "{path}: model {name!r}: {value} is not a SHA-256")
CATALOG_BAD_SIZE = Message("catalog.bad_size", "{path}: model {name!r}: bad size {value}")
CATALOG_NO_FILE_PATH = Message("catalog.no_file_path", "{path}: model {name!r}: file without a path")
CATALOG_UNSAFE_PATH = Message("catalog.unsafe_path", "{path}: model {name!r}: unsafe file path {file!r}")
CATALOG_BAD_MODEL_NAME = Message("catalog.bad_model_name", "{path}: bad model name {name!r}")
CATALOG_UNKNOWN_KIND = Message("catalog.unknown_kind", "{path}: model {name!r} has unknown kind {kind}")
CATALOG_BAD_FILE_ENTRY = Message("catalog.bad_file_entry", "{path}: model {name!r}: bad file entry {entry}")
CATALOG_EMPTY_ANY_OF = Message("catalog.empty_any_of", "{path}: model {name!r}: empty any_of")
CATALOG_ARCHIVE_NO_URLS = Message("catalog.archive_no_urls", "{path}: model {name!r}: archive without URLs")
CATALOG_MIRROR_NO_PLACEHOLDER = Message(
    "catalog.mirror_no_placeholder", "{path}: model {name!r}: mirror without a {{path}} placeholder"
)
CATALOG_NO_FILES = Message("catalog.no_files", "{path}: model {name!r} lists no files")
CATALOG_COMPANIONS = Message("catalog.companions", "{path}: model {name!r}: companions must be a list of model names")
CATALOG_NO_LOCATION = Message("catalog.no_location", "{path}: model {name!r} has no download location")
CATALOG_EXPORT_KEYS = Message("catalog.export_keys", '{path}: model {name!r}: "export" takes only {keys}')
CATALOG_EXPORT_OPTION = Message("catalog.export_option", "{path}: model {name!r}: bad export option {key}={value}")

# -- downloads (download.py, http_range.py) ------------------------------------------------------
NO_URL = Message("download.no_url", "{name}: no download URL")
NOT_A_HASH = Message("download.not_a_hash", "{name}: {value!r} is not a SHA-256 (64 hex digits)")
HTTPS_ONLY = Message("download.https_only", "refusing {url}: only https:// downloads are allowed")
NOT_A_URL = Message("download.not_a_url", "not a download URL: {url}")
CANNOT_WRITE_PART = Message("download.cannot_write", "cannot write {path}: {reason}")
HASH_MISMATCH = Message(
    "download.hash_mismatch",
    "{name}: downloaded file fails its SHA-256 check (expected {expected}, got {actual}); it was deleted",
)
NOT_ON_ANY_MIRROR = Message("download.not_found", "{name}: not found on any mirror ({reasons})")
DOWNLOAD_FAILED = Message("download.failed", "{name}: download failed ({reasons})")

# -- archives (archive.py) -------------------------------------------------------------------------
ENTRY_NUL = Message("archive.entry_nul", "{archive}: refusing entry {entry!r} (NUL in name)")
ENTRY_ABSOLUTE = Message("archive.entry_absolute", "{archive}: refusing entry {entry!r} (absolute path)")
ENTRY_DOTDOT = Message("archive.entry_dotdot", "{archive}: refusing entry {entry!r} ('..' in path)")
ENTRY_COLON = Message("archive.entry_colon", "{archive}: refusing entry {entry!r} (':' in path)")
ENTRY_SYMLINK = Message("archive.entry_symlink", "{archive}: refusing entry {entry!r} (symlink)")
ENTRY_HARD_LINK = Message("archive.entry_hard_link", "{archive}: refusing entry {entry!r} (hard link)")
ENTRY_SPECIAL = Message("archive.entry_special", "{archive}: refusing entry {entry!r} (special file)")
ENTRY_DEVICE = Message("archive.entry_device", "{archive}: refusing entry {entry!r} (device or special file)")
ENTRY_EMPTY_NAME = Message("archive.entry_empty_name", "{archive}: refusing entry {entry!r} (empty name)")
ENTRY_FILE_AND_FOLDER = Message(
    "archive.entry_file_and_folder", "{archive}: refusing entry {entry!r} (file and folder)"
)
ENTRY_DUPLICATE = Message("archive.entry_duplicate", "{archive}: refusing entry {entry!r} (duplicate)")
ENTRY_THROUGH_FILE = Message("archive.entry_through_file", "{archive}: refusing entry {entry!r} (path through a file)")
ENTRY_BEYOND_LIMIT = Message(
    "archive.entry_beyond_limit", "{archive}: refusing entry {entry!r} (archive expands beyond the {limit}-byte limit)"
)
ENTRY_BEYOND_SIZE = Message(
    "archive.entry_beyond_size", "{archive}: refusing entry {entry!r} (expands beyond its declared size)"
)
ENTRY_TRUNCATED = Message("archive.entry_truncated", "{archive}: entry {entry!r} is truncated")
TOO_MANY_ENTRIES = Message("archive.too_many_entries", "{archive}: more than {limit} entries; refusing")
NO_FILES_IN_ARCHIVE = Message("archive.no_files", "{archive}: the archive holds no files")
TARGET_EXISTS = Message("archive.target_exists", "{target}: already exists; not extracting {archive} over it")
NOT_AN_ARCHIVE = Message("archive.not_an_archive", "{archive}: not a .zip or .tar archive")
ARCHIVE_UNREADABLE = Message("archive.unreadable", "{archive}: cannot read ({reason})")
ARCHIVE_DAMAGED = Message("archive.damaged", "{archive}: damaged archive ({reason})")
CANNOT_EXTRACT = Message("archive.cannot_extract", "{archive}: cannot extract ({reason})")

# -- importing a Fun-ASR-Nano release folder (peer.py, peer_graph.py, peer_contract.py) -------------
NOT_A_RELEASE = Message(
    "import.not_a_release", "{folder}: not a Tingji model (no manifest.json) nor a Fun-ASR-Nano release (no {missing})"
)
CTC_NEEDS_TOKENS = Message("import.ctc_needs_tokens", "{folder}: {ctc} needs {tokens}, which is missing")
WIDTH_MISMATCH = Message(
    "import.width_mismatch",
    "{decoder}: decoder width {width} does not match the adaptor "
    "output width {adaptor} of {encoder}: they are not from the same model",
)
OUT_NOT_EMPTY = Message("import.out_not_empty", "{folder}: already exists and is not empty")
TOKENS_UNREADABLE = Message("import.tokens_unreadable", "{name}: unreadable ({reason})")
TOKENS_BAD_LINE = Message("import.tokens_bad_line", "{name}: line {line} is not `token id`")
TOKENS_GAPS = Message("import.tokens_gaps", "{name}: token ids are not 0..{last} without gaps")
ONNX_UNREADABLE = Message("import.onnx_unreadable", "{name}: not a readable ONNX model ({reason})")
WEIGHTS_MISSING = Message("import.weights_missing", "{name}: its weights file {file} is missing or outside the folder")
GGUF_UNREADABLE = Message(
    "import.gguf_unreadable", "{name}: llama.cpp cannot read it (not a GGUF decoder, or of an unknown kind)"
)
GGUF_NO_KEY = Message("import.gguf_no_key", "{name}: the GGUF header has no {key}")
GGUF_ARCH = Message("import.gguf_arch", "{name}: decoder architecture is {arch}, Tingji needs qwen3 (Qwen3-0.6B)")
GGUF_NO_TOKEN = Message("import.gguf_no_token", "{name}: the decoder vocabulary has no {token} token")
# A graph that breaks the engine's contract: the sentence names the file, what is wrong
# (`problem`, one of the messages below), what Tingji needs and what the graph declares.
ENCODER_CONTRACT = Message(
    "import.encoder_contract",
    "{name}: {problem}; Tingji needs inputs lfr_feat [batch, frames, {dim}] and "
    "mask [batch, frames], outputs enc_output and adaptor_output "
    "(this graph: inputs {inputs}; outputs {outputs})",
)
CTC_CONTRACT = Message(
    "import.ctc_contract",
    "{name}: {problem}; Tingji needs input enc_output [batch, frames, {dim}] "
    "(and optionally mask), outputs top-k log-probs and top-k ids "
    "(this graph: inputs {inputs}; outputs {outputs})",
)
ENCODER_NO_FEATURES = Message("import.encoder_no_features", "the encoder does not take LFR features and a mask")
ENCODER_EXTRA_INPUTS = Message("import.encoder_extra_inputs", "unexpected encoder inputs {names}")
ENCODER_INPUT_TYPES = Message("import.encoder_input_types", "lfr_feat and mask must be float or float16")
FEATURES_SHAPE = Message("import.features_shape", "lfr_feat has shape {shape}")
MASK_SHAPE = Message("import.mask_shape", "mask has shape {shape}")
ENCODER_OUTPUTS = Message("import.encoder_outputs", "the outputs are not enc_output, adaptor_output (in that order)")
ENCODER_WIDTHS = Message("import.encoder_widths", "the output widths are not fixed in the graph")
CTC_INPUT = Message("import.ctc_input", "the CTC head does not take enc_output")
CTC_INPUT_TYPE = Message("import.ctc_input_type", "enc_output is {type}")
CTC_MASK = Message("import.ctc_mask", "the mask is not a float [batch, frames] input")
CTC_OUTPUTS = Message("import.ctc_outputs", "the outputs are not (top-k log-probs, top-k ids)")
CTC_OUTPUT_SHAPES = Message("import.ctc_output_shapes", "the outputs are not [batch, frames, k]")

# -- a catalog entry's "about" object (about.py): ABOUT_INVALID's `problem` is one of the messages below ----
ABOUT_INVALID = Message("about.invalid", '{path}: model {name!r}: "about" {problem}')
ABOUT_NOT_OBJECT = Message("about.not_object", "is not an object")
ABOUT_UNKNOWN_KEYS = Message("about.unknown_keys", "has unknown key(s) {keys}")
ABOUT_FAMILY = Message("about.family", "names family {family}; known: {known}")
ABOUT_LANGUAGES = Message("about.languages", 'needs "languages": a list of language codes such as "zh"')
ABOUT_SPEED = Message("about.speed", "speed {speed} is not one of {choices}")
ABOUT_BEST_FOR = Message("about.best_for", 'needs "best_for": a list of {choices}')
ABOUT_DOWNLOAD_MB = Message("about.download_mb", "download_mb {value} is not a positive whole number")
ABOUT_RANK = Message("about.rank", "rank {value} is not a whole number")
ABOUT_COMPANION = Message("about.companion", "companion {value} is not true or false")
