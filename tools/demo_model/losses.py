"""The demo model's losses: CTC and the LLM's as Fun-ASR-Nano trains, plus the scaffolding ones.

Scaffolding (not part of the model; its heads are dropped from the checkpoint): per-frame word tags on
the encoder output, the same tags asked of the packed adaptor rows, and the rows regressed towards
"oracle rows", a fixed linear code of the frame tags each row covers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .data import N_TAGS, Batch, num_audio_tokens
from .recipe import AUDIO_ROWS_PER_FRAME, Dims, Recipe
from .text import TextSide

if TYPE_CHECKING:
    import torch


def ctc_logits(model, enc, bias, side: TextSide):
    """CTC logits restricted to `side.pack_ids` (vocabulary words, then blank)."""
    import torch.nn.functional as F

    lo = model.ctc.ctc_lo
    return F.linear(model.ctc_decoder(enc, bias), lo.weight[side.pack_ids], lo.bias[side.pack_ids])


ORACLE_SCALE = 1.0


def oracle_table(dims: Dims, seed: int) -> torch.Tensor:
    """[8, N_TAGS, llm_hidden] fixed random codes: one per (frame within a packed row, frame tag)."""
    import torch

    g = torch.Generator().manual_seed(seed * 1000 + 17)
    return torch.randn(AUDIO_ROWS_PER_FRAME, N_TAGS, dims.llm_hidden, generator=g) * ORACLE_SCALE


def oracle_rows(tags: torch.Tensor, table: torch.Tensor, n_rows: int) -> torch.Tensor:
    """What the LLM should read in each packed row: a linear code of its eight frames' word tags.

    Row i covers LFR frames 8i..8i+7; frame 8i+j with tag g adds table[j, g].
    That is a linear image of what the packing loss asks the row to hold, so
    the adaptor can write it (attention by position picks the frames, the
    value projection maps a frame's word to its code); the LLM is pretrained
    on these rows alone (`pretrain_llm`), so when joint training starts it can
    already read rows, and the adaptor is asked to produce them (`forward_losses`).
    """
    b = tags.shape[0]
    t = tags[:, : n_rows * AUDIO_ROWS_PER_FRAME].reshape(b, n_rows, AUDIO_ROWS_PER_FRAME)
    out = 0
    for j in range(AUDIO_ROWS_PER_FRAME):
        out = out + table[j][t[:, :, j]]
    return out / AUDIO_ROWS_PER_FRAME**0.5


def llm_batch(rows: Sequence[torch.Tensor], texts: Sequence[str], embed, tok, side: TextSide):
    """[audio rows][after][target] per item, right-padded, and the labels (target only)."""
    import torch

    seqs, labels = [], []
    after = embed(torch.tensor(side.after))
    for r, text in zip(rows, texts):
        target = side.target(tok, text)
        seqs.append(torch.cat([r, after, embed(torch.tensor(target))]))
        labels.append([-100] * (len(r) + len(side.after)) + target)
    length = max(len(lab) for lab in labels)
    inputs = torch.zeros(len(seqs), length, seqs[0].shape[-1])
    attention = torch.zeros(len(seqs), length, dtype=torch.long)
    label_ids = torch.full((len(seqs), length), -100, dtype=torch.long)
    for b, (s, lab) in enumerate(zip(seqs, labels)):
        inputs[b, : len(lab)] = s
        attention[b, : len(lab)] = 1
        label_ids[b, : len(lab)] = torch.tensor(lab)
    return inputs, attention, label_ids


def llm_loss(llm, embed, side: TextSide, inputs, attention, label_ids, smoothing: float):
    import torch
    import torch.nn.functional as F

    out = llm_logits(llm, embed(torch.tensor(side.before)), inputs, attention)
    shifted = label_ids[:, 1:]
    loss = F.cross_entropy(
        out[:, :-1].reshape(-1, out.shape[-1]), shifted.reshape(-1), ignore_index=-100, label_smoothing=smoothing
    )
    with torch.no_grad():
        sel = shifted != -100
        acc = (out[:, :-1].argmax(-1)[sel] == shifted[sel]).float().mean()
    return loss, acc


def ctc_loss(model, enc: torch.Tensor, bias: torch.Tensor, batch: Batch, side: TextSide) -> torch.Tensor:
    """CTC on the encoder output (word-level targets, one token per word), over the ids that can
    occur; the others are pinned far below (see `pin_unused_ctc`)."""
    import torch
    import torch.nn.functional as F

    logits = ctc_logits(model, enc, bias, side)
    log_probs = torch.log_softmax(logits, dim=-1)
    targets = [side.ctc_target(t) for t in batch.texts]
    return F.ctc_loss(
        log_probs.transpose(0, 1),
        torch.tensor([i for t in targets for i in t]),
        torch.tensor(batch.frames),
        torch.tensor([len(t) for t in targets]),
        blank=len(side.pack_ids) - 1,
        reduction="mean",
        zero_infinity=True,
    )


def packing_losses(
    model, rows: torch.Tensor, batch: Batch, table: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, list[int]]:
    """The packing loss, the oracle-row loss, and each item's number of audio rows.

    Packing: row i of the first ceil(T/8) adaptor rows says what frames 8i..8i+7 hold. The
    reference's layout feeds the LLM only those rows, so the adaptor's attention must gather the
    whole utterance into them; this teaches it directly, in time order. And the rows are asked for
    the oracle rows (what the pretrained LLM reads).
    """
    import torch
    import torch.nn.functional as F

    n_audio = [num_audio_tokens(t) for t in batch.frames]
    n_rows = max(n_audio)
    packed = model.pack_head(rows[:, :n_rows]).unflatten(-1, (AUDIO_ROWS_PER_FRAME, N_TAGS))
    goal = batch.tags[:, : n_rows * AUDIO_ROWS_PER_FRAME].unflatten(1, (n_rows, AUDIO_ROWS_PER_FRAME))
    row_valid = torch.zeros(len(n_audio), n_rows, dtype=torch.bool)
    for b, n in enumerate(n_audio):
        row_valid[b, :n] = True
    pack = F.cross_entropy(packed[row_valid].reshape(-1, N_TAGS), goal[row_valid].reshape(-1))
    target_rows = oracle_rows(batch.tags, table, n_rows)
    row = F.mse_loss(rows[:, :n_rows][row_valid], target_rows[row_valid])
    return pack, row, n_audio


def forward_losses(
    model, batch: Batch, tok, side: TextSide, recipe: Recipe, table: torch.Tensor
) -> dict[str, torch.Tensor]:
    """The losses of one batch: CTC and LLM as Fun-ASR-Nano trains, plus the scaffolding losses.

    LLM input per item, as the reference's data_load_speech lays it out:
    prompt tokens before the audio, the first ceil(T/8) adaptor rows, the
    tokens after the audio, then the target; loss on the target only.
    """
    import torch.nn.functional as F

    keep = batch.mask.unsqueeze(-1)
    bias = ((1.0 - batch.mask) * -1.0e9)[:, None, None, :]
    enc = model.audio_encoder(batch.feats * keep, keep, bias) * keep
    rows = model.audio_adaptor(enc, bias) * keep
    ctc = ctc_loss(model, enc, bias, batch, side)

    # Scaffolding 1: every encoder frame says which word it is in (approximate
    # alignment from synthesis). A dense signal that gets the encoder past the
    # long all-blank phase CTC alone spends hundreds of steps in.
    valid = batch.mask.bool()
    frame = F.cross_entropy(model.frame_head(enc)[valid], batch.tags[:, : enc.shape[1]][valid])
    pack, row, n_audio = packing_losses(model, rows, batch, table)

    # LLM: [before][audio rows][after][target], the adaptor's rows.
    embed = model.llm.get_input_embeddings()
    llm_rows = rows[:, : max(n_audio)]
    inputs, attention, label_ids = llm_batch(
        [llm_rows[b, :n] for b, n in enumerate(n_audio)], batch.texts, embed, tok, side
    )
    llm, acc = llm_loss(model.llm, embed, side, inputs, attention, label_ids, recipe.label_smoothing)
    return {"ctc": ctc, "llm": llm, "frame": frame, "pack": pack, "row": row, "acc": acc}


def llm_logits(llm, before: torch.Tensor, inputs: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
    """Logits over `inputs` for the sequences [before][inputs], the shared prompt computed once.

    The 25 prompt tokens before the audio are the same in every sequence and,
    the attention being causal, so are their keys and values: computing them
    once and repeating the cache over the batch gives the same logits (and
    gradients) as the full sequences at well under half the LLM's cost.
    """
    import torch

    prefix = llm.model(inputs_embeds=before[None], use_cache=True).past_key_values
    prefix.batch_repeat_interleave(inputs.shape[0])
    mask = torch.cat([torch.ones(inputs.shape[0], before.shape[0], dtype=attention.dtype), attention], dim=1)
    hidden = llm.model(inputs_embeds=inputs, attention_mask=mask, past_key_values=prefix, use_cache=True)
    return llm.lm_head(hidden.last_hidden_state)
