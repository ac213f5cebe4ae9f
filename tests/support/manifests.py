"""Valid manifests of every family, in the shape their writers give, for folders that never load.

The values only need to pass the manifest's checks (engine.schema); the real
exports are compared with the same dataclasses in tests/engine/test_manifest_strict.py.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from tingji.engine.families.campplus import SpeakerSection
from tingji.engine.families.ct_punc import NoFrontend, PunctuationSection
from tingji.engine.families.fun_asr_nano.section import NanoCtc, NanoDecoderInfo, NanoEncoderInfo, NanoSection
from tingji.engine.families.llm import DecoderInfo, SpecialTokens
from tingji.engine.families.paraformer.section import (
    ParaformerCif,
    ParaformerEncoderInfo,
    ParaformerSection,
    ParaformerTokens,
)
from tingji.engine.families.qwen3_asr.section import Qwen3EncoderInfo, Qwen3Section, Qwen3SpecialTokens
from tingji.engine.families.sense_voice_small.section import (
    SenseVoiceCtc,
    SenseVoiceEncoderInfo,
    SenseVoiceSection,
)
from tingji.engine.frontend import FrontendConfig
from tingji.engine.manifest import FileEntry, Manifest
from tingji.engine.mel import MelConfig


def nano_section() -> NanoSection:
    """What a tiny Nano export writes, in shape."""
    return NanoSection(
        special_tokens=SpecialTokens(eos_ids=(2,), stop_ids=(1, 2), im_start=0, im_end=2, endoftext=1, vocab_size=8),
        encoder=NanoEncoderInfo(
            precision="fp32",
            input_size=560,
            encoder_dim=16,
            llm_dim=16,
            inputs=("lfr_feat", "mask"),
            outputs=("enc_output", "adaptor_output"),
        ),
        decoder=NanoDecoderInfo(quant="f32", n_embd=16, n_layer=1, input_dtype="fp32"),
        ctc=NanoCtc(vocab_size=20, blank_id=19, text_tokens=10, top_k=8),
    )


def nano_section_json() -> dict[str, Any]:
    return asdict(nano_section())


def manifests(folder: Path) -> dict[str, Manifest]:
    """One manifest per family, as its writer makes them (files listed, not there); tests/test_family_kit.py
    checks that every declared family has one."""

    def made(family: str, roles: tuple[str, ...], seconds: float, frames: int, frontend: Any, section: Any) -> Manifest:
        files = {role: FileEntry(f"{role}.bin", "0" * 64, 1) for role in roles}
        return Manifest(folder, family, files, seconds, frames, frontend, section, source={"folder": "tiny"})

    sense_voice = SenseVoiceSection(
        encoder=SenseVoiceEncoderInfo(
            precision="fp32",
            input_size=560,
            encoder_dim=16,
            inputs=("speech", "mask", "query"),
            outputs=("query_log_probs", "query_ids", "log_probs", "ids"),
        ),
        ctc=SenseVoiceCtc(vocab_size=40),
        window_reason="30 s",
    )
    qwen3 = Qwen3Section(
        language_names={"en": "English", "zh": "Chinese"},
        languages=("en", "zh"),
        special_tokens=Qwen3SpecialTokens(
            eos_ids=(3,),
            stop_ids=(2, 3),
            im_start=1,
            im_end=3,
            endoftext=2,
            audio_start=4,
            audio_end=5,
            audio_pad=6,
            asr_text=7,
            vocab_size=16,
        ),  # fmt: skip
        encoder=Qwen3EncoderInfo(
            precision="fp32",
            n_mels=128,
            d_model=16,
            layers=1,
            llm_dim=16,
            chunk_frames=100,
            window_chunks=60,
            inputs=("mel", "mask"),
            outputs=("audio_rows",),
        ),
        decoder=DecoderInfo(quant="f32", n_embd=16, n_layer=1),
    )
    paraformer = ParaformerSection(
        variant="bicif",
        encoder=ParaformerEncoderInfo(precision="fp32", input_size=560, encoder_dim=16),
        cif=ParaformerCif(),  # written in full: the strict test then breaks each of its keys
        tokens=ParaformerTokens(vocab_size=40),
        window_reason="60 s",
    )
    punctuation = PunctuationSection(
        precision="fp32", vocab_size=30, marks=("<unk>", "_", "，", "。", "？", "、"), sentence_end_id=3, unk_id=0
    )
    # The default front-end (80 mels x LFR 7), not CAM++'s plain fbank: the strict corpus reads a missing
    # front-end key as its default, which must still agree with the section.
    speakers = SpeakerSection(precision="fp32", feat_dim=560, embedding_size=16)
    return {
        "fun-asr-nano": made(
            "fun-asr-nano",
            ("encoder", "encoder_data", "ctc", "decoder", "tokens"),
            60.0,
            1000,
            FrontendConfig(),
            nano_section(),
        ),  # fmt: skip
        "sense-voice-small": made(
            "sense-voice-small",
            ("encoder", "encoder_data", "encoder_fixed", "cmvn", "tokens"),
            30.0,
            500,
            FrontendConfig(),
            sense_voice,
        ),  # fmt: skip
        "qwen3-asr": made("qwen3-asr", ("encoder", "encoder_data", "decoder"), 60.0, 6000, MelConfig(), qwen3),
        "paraformer": made(
            "paraformer",
            ("encoder", "encoder_data", "encoder_fixed", "decoder", "decoder_fixed", "timestamp", "cmvn", "tokens"),
            60.0,
            1000,
            FrontendConfig(),
            paraformer,
        ),  # fmt: skip
        "ct-punc": made("ct-punc", ("punc", "punc_data", "tokens"), 0.0, 0, NoFrontend(), punctuation),
        "campplus": made(
            "campplus", ("embedder", "embedder_fixed", "embedder_data"), 1.5, 148, FrontendConfig(), speakers
        ),
    }
