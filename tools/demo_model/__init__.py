"""Tingji's demo model: a small Fun-ASR-Nano that really recognises speech, and how it is trained.

Random-weight checkpoints (tools/make_tiny_checkpoint.py) prove the pipeline
computes what the reference computes, but not that it transcribes: VAD
trimming, window seams or a wrong prompt would go unnoticed when every output
is noise anyway. tools/train_demo_model.py trains, on CPU and in under half an
hour, a model that recognises a small English vocabulary spoken by espeak-ng, so tests can
check words instead of numbers.

    tools/train_demo_model.py --out DIR --seed N [--minutes M]

It is Fun-ASR-Nano in every respect but size: the SenseVoice SAN-M encoder,
the transformer adaptor whose first ceil(T/8) rows are the LLM's audio
tokens, the CTC head, and a Qwen3 decoder prompted with Tingji's default
prompt (`build_prompt()`: no language, no hotwords, itn=True). The checkpoint
is written in the official release layout (funasr's FunASRNano loads it) and
exported with `tingji export-model`. One hyperparameter differs in kind: the
FSMN kernel spans the 60 s window (see `positional_init`).

Data: every utterance is synthesised here with espeak-ng's C library (many
accents, voice variants, speeds, pitches, word gaps, tempo perturbation),
then given random level, leading and trailing silence, light noise and
sometimes reverb; in training the features also get vocal-tract-length
warping and channel tilt. Eight voice variants (timbre, formants, pitch range)
and one band of speeds are never used in training; the held-out evaluation set
is made only of those, spoken with the training accents (`random_speaker`).
Two further accents are not used at all.
Long examples (up to 58 s) are utterances joined back to back, one speaker's
first, then others' as in a conversation.

Training: CTC and the LLM loss as the reference trains them, after a
short-only curriculum phase, plus scaffolding losses that are not part of
the model (their heads are dropped from the checkpoint): per-frame word tags
on the encoder output, from espeak's word positions, the same tags asked
of the packed adaptor rows, and the packed rows regressed towards "oracle
rows", a fixed linear code of the frame tags each row covers (`oracle_rows`,
`forward_losses`). The LLM is first trained alone on oracle rows plus noise
(`pretrain_llm`), so it can already read rows when joint training starts.
The encoder and adaptor start from a hand-made position code and packing
attention (`positional_init`, `packing_init`) that training then refines.
The exported weights are an average over the second half of joint training
(`WeightAverage`), after which the adaptor and LLM get more steps alone on
the frozen encoder (`polish_llm`). An optional last stage, off by default
(`--conversation-steps`), teaches them to read windows of many words: quick
turn-taking conversations of training voices (`conversation`). It starts from the weights as the export keeps them
(`from_export.round_as_exported`), so `--from-export` can run it alone from an
export of the first three stages and train the same model.

Determinism: `--minutes` is a *budget* converted into a fixed amount of data
and a fixed number of optimizer steps (calibrated on a 2-core machine), not a
wall-clock limit, so the machine's load does not change what is trained.
Threads are fixed, data order comes from the seed. espeak-ng keeps state
between utterances inside a process (its samples for an utterance depend
slightly on what the process synthesised before), so every speaker of the
training set and every held-out utterance is synthesised in a freshly forked
process (`fresh_process_map`) from a fork server that never synthesises: the audio
is a function of the seed alone, whatever the number of workers or the timing.

The package, in the order a run goes through it (`cli.main`): `recipe` (vocabulary, voices,
speeds, sizes, what a budget buys), `speech` (espeak-ng, augmentation, speakers, the held-out
set), `data` (training examples, long examples, batches), `text` (tokenizer, CTC ids, WER),
`model` (the modules and their starting point), `losses`, `training` (the three phases),
`conversation` (the last stage), `from_export` (weights read back from an export), `export` (the
release layout, `tingji export-model`), `evaluate` (held-out WER through `Engine`).
"""
