"""What the exporter says when something goes wrong: one constant per message (see tingji/errors.py)."""

from __future__ import annotations

from ..errors import Message

# -- which checkpoint, which converter (__init__.py, extra.py) -------------------------------------
UNKNOWN_FAMILY = Message("export.unknown_family", "unknown model family {family!r} (choose {choices})")
CONFIG_UNREADABLE = Message("export.config_unreadable", "{path}: unreadable ({reason})")
CONFIG_NOT_MAPPING = Message("export.config_not_mapping", "{path}: not a mapping")
CHECKPOINT_NOT_FOUND = Message("export.checkpoint_not_found", "{folder}: checkpoint folder not found")
NOT_A_CHECKPOINT = Message(
    "export.not_a_checkpoint", "{folder}: not a checkpoint Tingji can convert (no config of {known})"
)
OUT_NOT_EMPTY = Message(
    "export.out_not_empty", "{folder}: already exists and is not empty; remove it or choose another --out"
)
# The export extra missing, by the way the exporter was reached (extra.needs_export_extra).
EXTRA_FOR_EXPORT = Message(
    "export.extra_missing_export", "export-model needs the export extra ({module} is missing): {hint}"
)
EXTRA_FOR_CONVERSION = Message(
    "export.extra_missing_conversion",
    "converting the official checkpoint needs the export extra ({module} is missing): {hint}",
)

# -- reading the checkpoint (torch_state.py, fun_asr_nano/checkpoint.py) -----------------------------
WEIGHTS_UNREADABLE = Message("export.weights_unreadable", "{path}: cannot read weights ({reason})")
NO_STATE_DICT = Message("export.no_state_dict", "{path}: does not hold a state dict")
NO_LLM_FOLDER = Message("export.no_llm_folder", "{folder}: no LLM folder with config.json (looked for {candidates})")
NOT_NANO = Message("export.not_nano", "{folder}: not a Fun-ASR-Nano checkpoint ({file} missing)")
YAML_UNREADABLE = Message("export.yaml_unreadable", "{path}: unreadable YAML ({reason})")
WRONG_MODEL = Message("export.wrong_model", "{path}: model is {model}, expected FunASRNano")
DOWNSAMPLE = Message("export.downsample", "audio adaptor downsample_rate other than 1 is not supported")
NO_ENCODER_WEIGHTS = Message("export.no_encoder_weights", "{path}: no audio encoder weights")
ENCODER_SIZES = Message("export.encoder_sizes", "{path}: encoder weights {shape} do not match config.yaml sizes")
CMVN = Message("export.cmvn", "checkpoints with CMVN statistics are not Fun-ASR-Nano; not supported")
NO_LLM_WEIGHTS = Message("export.no_llm_weights", "model.pt has no LLM weights (llm.model.embed_tokens.weight)")
NO_LM_HEAD = Message("export.no_lm_head", "config says untied embeddings but model.pt has no lm_head")

# -- reading model.pt without torch (pt_reader.py) -------------------------------------------------
PT_LEGACY = Message(
    "export.pt_legacy", "{path}: a PyTorch file in the legacy format (before torch 1.6); save it again with torch.save"
)
PT_NOT_ZIP = Message("export.pt_not_zip", "{path}: not a PyTorch checkpoint (no zip archive)")
PT_DAMAGED = Message("export.pt_damaged", "{path}: damaged or truncated checkpoint ({reason})")
PT_NO_RECORD = Message("export.pt_no_record", "{path}: not a PyTorch checkpoint (no {record} in the archive)")
PT_VERSION = Message("export.pt_version", "{path}: PyTorch file format version {version!r} is not supported")
PT_COMPRESSED = Message(
    "export.pt_compressed", "{path}: {member} is compressed or encrypted (torch.save stores it plain)"
)
PT_BYTEORDER = Message("export.pt_byteorder", "{path}: byte order {order!r} is not supported (only little-endian)")
PT_GLOBAL = Message("export.pt_global", "{path}: refused global {name} in the pickle (a checkpoint holds only tensors)")
PT_INSTRUCTION = Message(
    "export.pt_instruction", "{path}: refused pickle instruction {opcode} (a checkpoint holds only tensors)"
)
PT_TENSOR_STATE = Message(
    "export.pt_tensor_state", "{path}: refused a tensor with hooks or extra state (a checkpoint holds only tensors)"
)
PT_MALFORMED = Message("export.pt_malformed", "{path}: malformed checkpoint pickle ({reason})")
PT_DTYPE = Message("export.pt_dtype", "{path}: tensor type {name} is not supported")
PT_STORAGE_MISSING = Message("export.pt_storage_missing", "{path}: tensor storage {key!r} missing from the archive")
PT_STORAGE_SIZE = Message(
    "export.pt_storage_size", "{path}: tensor storage {key!r} has {size} bytes, the pickle says {expected}"
)
PT_STORAGE_SHORT = Message(
    "export.pt_storage_short", "{path}: tensor storage {key!r} has {size} bytes, its tensors need {needed}"
)

# -- writing the graphs (onnx_tools.py, fun_asr_nano/graphs.py, gguf_tools.py) -----------------------
UNKNOWN_PRECISION = Message("export.unknown_precision", "unknown precision {precision!r} (choose {choices})")
UNKNOWN_QUANT = Message("export.unknown_quant", "unknown decoder quantization {quant!r} (choose {choices})")
ENCODER_MISMATCH = Message(
    "export.encoder_mismatch",
    "encoder weights do not match the architecture (missing {missing}, unexpected {unexpected})",
)
CTC_MISMATCH = Message(
    "export.ctc_mismatch", "CTC weights do not match the architecture (missing {missing}, unexpected {unexpected})"
)
TENSOR_EXTERNAL = Message("export.tensor_external", "internal: tensor still external after load")
TOKENIZER_MISSING = Message("export.tokenizer_missing", "{path}: tokenizer.json missing")
NOT_BPE = Message("export.not_bpe", "{path}: expected a BPE tokenizer, found {kind}")
TOKEN_BEYOND_VOCAB = Message("export.token_beyond_vocab", "{path}: token id {id} beyond the model's vocab_size {size}")
NO_MERGES = Message("export.no_merges", "{path}: no BPE merges (llama.cpp refuses such a vocabulary)")
GGUF_DTYPE = Message("export.gguf_dtype", "write_gguf makes f32/f16 files, not {dtype}")
NO_GGUF_NAME = Message("export.no_gguf_name", "no GGUF name for LLM tensor {tensor}")
QUANTIZE_FAILED = Message(
    "export.quantize_failed", "llama.cpp could not quantize the decoder to {quant} (code {status})"
)
LLM_NOT_QWEN3 = Message("export.llm_not_qwen3", "LLM config: model_type {model_type}, expected qwen3")

# -- safetensors releases (safetensors_file.py) -------------------------------------------------------
SAFETENSORS_HEADER_SIZE = Message(
    "export.safetensors_header_size",
    "{path}: not a safetensors file, or truncated (header of {header} bytes in {size})",
)
SAFETENSORS_HEADER_UNREADABLE = Message(
    "export.safetensors_header_unreadable", "{path}: not a safetensors file (unreadable header)"
)
SAFETENSORS_HEADER_NOT_MAPPING = Message(
    "export.safetensors_header_not_mapping", "{path}: not a safetensors file (header is not a mapping)"
)
SAFETENSORS_BAD_ENTRY = Message("export.safetensors_bad_entry", "{path}: bad header entry for tensor {tensor!r}")
SAFETENSORS_TENSOR_SIZE = Message(
    "export.safetensors_tensor_size", "{path}: tensor {tensor!r} has {size} bytes for shape {shape} {dtype}"
)
SAFETENSORS_TRUNCATED = Message(
    "export.safetensors_truncated", "{path}: truncated ({size} bytes, its header describes {expected})"
)
SHARD_INDEX_UNREADABLE = Message("export.shard_index_unreadable", "{path}: unreadable shard index")
SHARD_OUTSIDE = Message("export.shard_outside", "{path}: shard {shard!r} outside the checkpoint folder")
CHECKPOINT_FILE_MISSING = Message("export.checkpoint_file_missing", "{folder}: checkpoint file {file} missing")
INT8_SATURATES = Message(
    "export.int8_saturates",
    "internal: int8 weight {tensor} reaches {peak}, over {limit}: CPUs without VNNI would saturate",
)

# -- SenseVoice-Small checkpoints (sense_voice_small/) ------------------------------------------------
FUNASR_CONFIG_UNREADABLE = Message(
    "export.funasr_config_unreadable", "{path}: unreadable (not the JSON object funasr releases carry)"
)
FUNASR_NOT_A_FILE_NAME = Message(
    "export.funasr_not_a_file_name", "{path}: {name!r} is not a file name inside the checkpoint folder"
)
NOT_SENSE_VOICE = Message("export.not_sense_voice", "{folder}: not a SenseVoice-Small checkpoint (config.yaml missing)")
MODEL_CLASS_WRONG = Message("export.model_class_wrong", "{path}: model is not {expected}")
SENSE_VOICE_INCOMPLETE = Message(
    "export.sense_voice_incomplete", "{folder}: incomplete SenseVoice-Small checkpoint ({file} missing)"
)
NOT_CMVN = Message("export.not_cmvn", "{path}: not a CMVN file ({reason})")
NOT_SENSE_VOICE_VOCAB = Message(
    "export.not_sense_voice_vocab", "{path}: not SenseVoice's vocabulary (no {pieces} pieces)"
)
VOCAB_SIZE_MISMATCH = Message(
    "export.vocab_size_mismatch",
    "{path}: {pieces} pieces, but model.pt's CTC head has {outputs} outputs: not this model's vocabulary",
)
CMVN_WIDTH_MISMATCH = Message(
    "export.cmvn_width_mismatch", "{path}: {values} values per row, the encoder takes {expected}"
)
NOT_SENSE_VOICE_WEIGHTS = Message(
    "export.not_sense_voice_weights", "{path}: not SenseVoice-Small weights (encoder, CTC head or query table missing)"
)
SENSE_VOICE_SHAPES = Message("export.sense_voice_shapes", "{path}: weight shapes do not match config.yaml's sizes")
QUERY_TABLE_ROWS = Message(
    "export.query_table_rows", "{path}: the query table has {rows} rows, SenseVoice-Small uses 16"
)
BPE_UNREADABLE = Message("export.bpe_unreadable", "{path}: unreadable ({reason})")
NOT_SENTENCEPIECE = Message("export.not_sentencepiece", "{path}: not a SentencePiece model ({reason})")
SENSE_VOICE_MISMATCH = Message(
    "export.sense_voice_mismatch",
    "{path}: weights do not match SenseVoice-Small (missing {missing}, unexpected {unexpected})",
)

# -- Qwen3-ASR checkpoints (qwen3_asr/) ----------------------------------------------------------------
QWEN3_ASR_FILE_MISSING = Message(
    "export.qwen3_asr_file_missing", "{folder}: not a Qwen3-ASR checkpoint ({file} missing)"
)
JSON_UNREADABLE = Message("export.json_unreadable", "{path}: unreadable ({reason})")
JSON_NOT_OBJECT = Message("export.json_not_object", "{path}: not a JSON object")
QWEN3_ASR_NO_TOKENIZER = Message(
    "export.qwen3_asr_no_tokenizer", "{folder}: not a Qwen3-ASR checkpoint (no tokenizer.json and no {file})"
)
QWEN3_ASR_MODEL_TYPE = Message("export.qwen3_asr_model_type", "{path}: model_type {model_type!r}, expected qwen3_asr")
QWEN3_ASR_LAYOUT = Message(
    "export.qwen3_asr_layout",
    "{path}: no thinker_config with audio_config and text_config "
    "(only the original Qwen/Qwen3-ASR-* layout is supported, not the -hf one)",
)
TOKENIZER_LACKS = Message("export.tokenizer_lacks", "{folder}: tokenizer lacks the token(s) {tokens}")
AUDIO_PAD_MISMATCH = Message(
    "export.audio_pad_mismatch",
    "{folder}: config audio_token_id {config_id} is not the tokenizer's <|audio_pad|> ({tokenizer_id})",
)
AUDIO_CONFIG_BAD = Message("export.audio_config_bad", "{path}: audio_config lacks or mangles {key}")
AUDIO_CONFIG_VARIANT = Message(
    "export.audio_config_variant",
    "{path}: audio_config variant not supported (activation other than gelu, or scale_embedding)",
)
AUDIO_TENSOR_SHAPE = Message("export.audio_tensor_shape", "{folder}: {tensor} is {found}, config.json says {shape}")
AUDIO_WIDTH_MISMATCH = Message(
    "export.audio_width_mismatch", "{folder}: audio output_dim {audio} differs from the LLM width {llm}"
)
QWEN3_ASR_NO_LLM = Message("export.qwen3_asr_no_llm", "{folder}: no LLM weights (thinker.model.embed_tokens.weight)")
AUDIO_TOWER_MISMATCH = Message(
    "export.audio_tower_mismatch",
    "audio tower weights do not match the architecture (missing {missing}, unexpected {unexpected})",
)

# -- Paraformer checkpoints (paraformer/) -------------------------------------------------------------
NOT_PARAFORMER = Message("export.not_paraformer", "{folder}: not a Paraformer checkpoint (config.yaml missing)")
PARAFORMER_MODEL = Message(
    "export.paraformer_model",
    "{path}: model {model!r} is not supported (Tingji converts Paraformer and BiCifParaformer; "
    "SeACo hotwords and streaming models are not supported yet)",
)
PARAFORMER_PART = Message(
    "export.paraformer_part", "{path}: {part} {name!r} is not supported with {model} (expected {expected})"
)
PARAFORMER_INCOMPLETE = Message(
    "export.paraformer_incomplete", "{folder}: incomplete Paraformer checkpoint ({file} missing)"
)
NOT_TOKEN_LIST = Message("export.not_token_list", "{path}: not a token list ({reason})")
PARAFORMER_NOT_NUMBER = Message("export.paraformer_not_number", "{path}: {key} is {value!r}, not a number")
PARAFORMER_NOT_MAPPING = Message("export.paraformer_not_mapping", "{path}: {key} is {value!r}, not a mapping")
PARAFORMER_VOCAB = Message(
    "export.paraformer_vocab",
    "{path}: {tokens} tokens, but model.pt's decoder has {outputs} outputs: not this model's vocabulary",
)
NOT_PARAFORMER_WEIGHTS = Message("export.not_paraformer_weights", "{path}: not Paraformer weights ({tensor} missing)")
PARAFORMER_SHAPES = Message(
    "export.paraformer_shapes", "{path}: {tensor} is {found}, config.yaml's sizes make it {expected}"
)
PARAFORMER_MISMATCH = Message(
    "export.paraformer_mismatch",
    "{path}: weights do not match {model} (missing {missing}, unexpected {unexpected})",
)

# -- CT-Transformer punctuation checkpoints (ct_punc/) --------------------------------------------------
NOT_PUNC_CHECKPOINT = Message(
    "export.not_punc_checkpoint", "{folder}: not a CT-Transformer punctuation checkpoint (config.yaml missing)"
)
PUNC_PART = Message("export.punc_part", "{path}: {part} {name!r} is not supported (expected {expected})")
PUNC_WORD_LEVEL = Message(
    "export.punc_word_level",
    "{path}: a word-level punctuation model (jieba dictionary); Tingji supports the character-level "
    "zh-cn-common-vocab272727 model",
)
PUNC_INCOMPLETE = Message("export.punc_incomplete", "{folder}: incomplete punctuation checkpoint ({file} missing)")
PUNC_MARKS = Message("export.punc_marks", "{path}: model_conf.punc_list {marks} lacks _, ，, 。 or ？")
PUNC_VOCAB = Message(
    "export.punc_vocab",
    "{path}: {tokens} tokens, but model.pt's embedding has {rows} rows: not this model's vocabulary",
)
PUNC_MISMATCH = Message(
    "export.punc_mismatch",
    "{path}: weights do not match the CT-Transformer (missing {missing}, unexpected {unexpected}, wrong shape {wrong})",
)

# -- CAM++ speaker model (export/campplus) --------------------------------------------------------
CAMPPLUS_INCOMPLETE = Message("export.campplus_incomplete", "{folder}: the CAM++ checkpoint lacks {file}")
CAMPPLUS_VARIANT = Message(
    "export.campplus_variant", "{path}: CAM++ with {key} = {value} is not supported (Tingji converts {expected})"
)
CAMPPLUS_MISMATCH = Message(
    "export.campplus_mismatch",
    "{path}: the weights do not fit config.yaml's CAM++ (missing {missing}, unexpected {unexpected}, shapes {shapes})",
)

# -- graphs from templates, without torch (templates.py) --------------------------------------------
NO_TEMPLATE_FAMILY = Message(
    "export.no_template_family",
    "this app has no graph templates for {family} ({role}); convert it where torch is installed",
)
NO_TEMPLATE = Message(
    "export.no_template", "no graph template for this {family} checkpoint's {role}: it differs in {differences}"
)
TEMPLATE_TENSOR_MISSING = Message(
    "export.template_tensor_missing", "the checkpoint has no tensor {tensor}, which the graph template needs"
)
TEMPLATE_TENSOR_EXTRA = Message(
    "export.template_tensor_extra",
    "the checkpoint has {count} tensor(s) its config does not describe ({tensors}): another architecture",
)
TEMPLATE_TENSOR_SHAPE = Message(
    "export.template_tensor_shape", "tensor {tensor} has shape {shape}; the graph template needs {expected}"
)
TEMPLATE_UNSTABLE = Message(
    "export.template_unstable", "cannot make a template of {family}'s {role}: {what} depends on the weights"
)
