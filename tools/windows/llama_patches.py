"""Tingji's changes to llama.cpp's CPU backend, in every CPU build Tingji makes: the Windows DLLs
(winenv.build_llama) and Linux's llama_cpp/lib-cpu (tools/llama_cpu.py).

Each patch is (file under vendor/llama.cpp, old text, new text, why) and must match once; they apply in
order (`winenv.patch_llama`). Three kinds, all about verifying a drafted block (4-63 rows):
- the tiled K-quant kernel (ggml-cpu/tiled), which multiplies the block by the weights, stops waiting on
  memory and doing work nobody reads; no result changes;
- flash attention takes its tiled kernel from 8 query rows on, not 64, and that kernel stops packing K
  transposed, scalar by scalar (`_FA_*` below). Prefill (64 rows and more) and one token's step compute
  exactly what they did; a block of 8-63 rows now sums its attention in f32 as prefill does;
- the tiled K-quant kernel multiplies only a band's valid columns, keeps 17-64 rows on its narrow path and
  takes blocks of 4-7 rows too (llama_tiled_patches.py): rows of 8 and more are the floats they were, and a
  block of 4-7 rows gives what a longer batch gives for the same rows.
Measured in benchmarks/README.md ("the tiled kernel", "flash attention for blocks", "blocks of 4-64 rows").
"""

from __future__ import annotations

from llama_tiled_patches import TILED_BLOCK_PATCHES

# The tiled K-quant kernel: no result changes.
_TILED = "ggml/src/ggml-cpu/tiled/tiled.cpp"
_TILED_KERNEL = "ggml/src/ggml-cpu/tiled/tiled-kernel.cpp"
LLAMA_CPU_PATCHES = (
    (
        _TILED,
        "            // result buffer zeroed once per macrotile\n"
        "            memset(ws->acc, 0, (size_t)TILED_TILE_ROWS * TILED_TILE_ROWS * sizeof(float));\n",
        "            // result buffer zeroed once per macrotile: the rows and 16-wide column bands the\n"
        "            // microtiles accumulate into, not all 256 KB (Tingji)\n"
        "            for (int i = 0; i < ((n_src0 + TILED_MICRO - 1) & ~(TILED_MICRO - 1)); i++) {\n"
        "                memset(ws->acc + (size_t) i * TILED_TILE_ROWS, 0,\n"
        "                       (size_t) ((n_src1 + TILED_MICRO - 1) & ~(TILED_MICRO - 1)) * sizeof(float));\n"
        "            }\n",
        "a 16-row block zeroed 256 KB per window and used 16 KB of it",
    ),
    (
        _TILED,
        "                        const B * wbase = (const B *) (src0_row + ir0 * nb01 + kstart * src0_bs);\n",
        "                        const B * wbase = (const B *) (src0_row + ir0 * nb01 + kstart * src0_bs);\n"
        "                        // the next group's weights into L2 now, so that they arrive while this\n"
        "                        // group's microtiles run (Tingji)\n"
        "                        if (ir0 + MICRO < iir0_end) {\n"
        "                            const char * next = src0_row + (ir0 + MICRO) * nb01 + kstart * src0_bs;\n"
        "                            for (int64_t r = 0; r < MIN(MICRO, iir0_end - ir0 - MICRO); r++) {\n"
        "                                for (size_t off = 0; off < (size_t) num_k * src0_bs; off += 64) {\n"
        "                                    __builtin_prefetch(next + r * nb01 + off, 0, 2);\n"
        "                                }\n"
        "                            }\n"
        "                        }\n",
        "the narrow path's unpacking waited on each group's weights: a 16-row block cost 5.2 single steps",
    ),
    (
        _TILED_KERNEL,
        "void tiled_repack_src0(tiled_tile_src0 * tile, int n_rows, int num_k, int BIAS, bool corr) {\n"
        "#if defined(__AVX2__)\n",
        "void tiled_repack_src0(tiled_tile_src0 * tile, int n_rows, int num_k, int BIAS, bool corr) {\n"
        "#if defined(__AVX512VNNI__) && defined(__AVX512VL__) && defined(__AVX512DQ__)\n"
        "    // the VNNI microkernel never reads the act-bias correction: only the AVX2 one does (Tingji)\n"
        "    GGML_UNUSED(tile); GGML_UNUSED(n_rows); GGML_UNUSED(num_k); GGML_UNUSED(BIAS); GGML_UNUSED(corr);\n"
        "#elif defined(__AVX2__)\n",
        "on AVX-512 VNNI it summed every Q6_K weight on every product for nothing: 5 % of a block",
    ),
)
_Q5_K_CODES = """\
            tiled_unpk_nib4(x.qs + 0,  q + 0,   q + 32);
            tiled_unpk_nib4(x.qs + 32, q + 64,  q + 96);
            tiled_unpk_nib4(x.qs + 64, q + 128, q + 160);
            tiled_unpk_nib4(x.qs + 96, q + 192, q + 224);
            tiled_unpk_or<0, 4, 1>(q + 0,   x.qh);
            tiled_unpk_or<1, 4, 1>(q + 32,  x.qh);
            tiled_unpk_or<2, 4, 1>(q + 64,  x.qh);
            tiled_unpk_or<3, 4, 1>(q + 96,  x.qh);
            tiled_unpk_or<4, 4, 1>(q + 128, x.qh);
            tiled_unpk_or<5, 4, 1>(q + 160, x.qh);
            tiled_unpk_or<6, 4, 1>(q + 192, x.qh);
            tiled_unpk_or<7, 4, 1>(q + 224, x.qh);
"""
_Q6_K_CODES = """\
            for (int half = 0; half < 2; half++) {
                uint8_t * out = q + 128 * half;
                tiled_unpk_nib4(x.ql + 64 * half + 0,  out + 0,  out + 64);
                tiled_unpk_nib4(x.ql + 64 * half + 32, out + 32, out + 96);
                tiled_unpk_or<0, 4, 3>(out + 0,  x.qh + 32 * half);
                tiled_unpk_or<2, 4, 3>(out + 32, x.qh + 32 * half);
                tiled_unpk_or<4, 4, 3>(out + 64, x.qh + 32 * half);
                tiled_unpk_or<6, 4, 3>(out + 96, x.qh + 32 * half);
            }
"""
# One pass per 32 bytes for Q5_K's and Q6_K's codes: the stock unpacking stores the 4-bit codes, then
# loads them back once for each high bit. The same bytes come out; without AVX2, the stock sequence.
_FUSED_UNPACK = (
    """
// Tingji: Q5_K's and Q6_K's codes in one pass (low bits and high bits joined in registers)
#if defined(__AVX2__)
static inline __m256i tiled_high_bits(__m256i h, int shift, __m256i mask) {
    return _mm256_slli_epi32(_mm256_and_si256(_mm256_srl_epi32(h, _mm_cvtsi32_si128(shift)), mask), 4);
}

static inline void tiled_unpk_q5_K(const uint8_t * qs, const uint8_t * qh, uint8_t * q) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m1 = _mm256_set1_epi8(0x01);
    const __m256i h = _mm256_loadu_si256((const __m256i *) qh);
    for (int u = 0; u < 4; u++) {
        const __m256i v = _mm256_loadu_si256((const __m256i *) (qs + 32 * u));
        _mm256_storeu_si256((__m256i *) (q + 64 * u),
                            _mm256_or_si256(_mm256_and_si256(v, m4), tiled_high_bits(h, 2 * u, m1)));
        _mm256_storeu_si256((__m256i *) (q + 64 * u + 32),
                            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(v, 4), m4), tiled_high_bits(h, 2 * u + 1, m1)));
    }
}

static inline void tiled_unpk_q6_K(const uint8_t * ql, const uint8_t * qh, uint8_t * q) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m2 = _mm256_set1_epi8(0x03);
    for (int half = 0; half < 2; half++) {
        const __m256i a = _mm256_loadu_si256((const __m256i *) (ql + 64 * half));
        const __m256i b = _mm256_loadu_si256((const __m256i *) (ql + 64 * half + 32));
        const __m256i h = _mm256_loadu_si256((const __m256i *) (qh + 32 * half));
        uint8_t * out = q + 128 * half;
        _mm256_storeu_si256((__m256i *) (out + 0), _mm256_or_si256(_mm256_and_si256(a, m4), tiled_high_bits(h, 0, m2)));
        _mm256_storeu_si256((__m256i *) (out + 32), _mm256_or_si256(_mm256_and_si256(b, m4), tiled_high_bits(h, 2, m2)));
        _mm256_storeu_si256((__m256i *) (out + 64),
                            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(a, 4), m4), tiled_high_bits(h, 4, m2)));
        _mm256_storeu_si256((__m256i *) (out + 96),
                            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(b, 4), m4), tiled_high_bits(h, 6, m2)));
    }
}
#else
static inline void tiled_unpk_q5_K(const uint8_t * qs, const uint8_t * qh, uint8_t * q) {
    const block_q5_K x = [&] { block_q5_K b; memcpy(b.qs, qs, sizeof b.qs); memcpy(b.qh, qh, sizeof b.qh); return b; }();
"""  # noqa: E501 - C text, matched and built as it is
    + _Q5_K_CODES
    + """}

static inline void tiled_unpk_q6_K(const uint8_t * ql, const uint8_t * qh, uint8_t * q) {
    const block_q6_K x = [&] { block_q6_K b; memcpy(b.ql, ql, sizeof b.ql); memcpy(b.qh, qh, sizeof b.qh); return b; }();
"""  # noqa: E501 - C text, matched and built as it is
    + _Q6_K_CODES
    + """}
#endif
"""
)
LLAMA_CPU_PATCHES = (
    *LLAMA_CPU_PATCHES,
    (_TILED, _Q5_K_CODES, "            tiled_unpk_q5_K(x.qs, x.qh, q);\n", "Q5_K's codes in one pass"),
    (_TILED, _Q6_K_CODES, "            tiled_unpk_q6_K(x.ql, x.qh, q);\n", "Q6_K's codes in one pass"),
    (
        _TILED,
        "#define UNUSED GGML_UNUSED\n",
        "#define UNUSED GGML_UNUSED\n"
        "\n"
        "// the blocks' fp16 scales through ggml-cpu's inline conversion, not a call into ggml-base (Tingji)\n"
        '#include "simd-mappings.h"\n'
        "#define ggml_fp16_to_fp32(x) GGML_CPU_FP16_TO_FP32(x)\n" + _FUSED_UNPACK,
        "two calls into ggml-base per weight block, and the codes stored, then loaded back per high bit",
    ),
)
# The activations' q8_K quantisation, which every K-quant product starts with, ran the scalar reference.
_Q8_K_REF = """\
// placeholder implementation for Apple targets
void quantize_row_q8_K(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    quantize_row_q8_K_ref(x, y, k);
}
"""
_Q8_K_AVX2 = """\
void quantize_row_q8_K(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
#if defined(__AVX2__)
    // Tingji: the reference's very bytes, 8 lanes at a time: the same largest magnitude and the first
    // value that has it, the same float products, rounded half to even as nearest_int does (|v| <= 127)
    assert(k % QK_K == 0);
    block_q8_K * GGML_RESTRICT y = vy;
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256i perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        __m256 vmax = _mm256_setzero_ps();
        __m256 unordered = _mm256_setzero_ps();
        for (int j = 0; j < QK_K; j += 8) {
            const __m256 v = _mm256_loadu_ps(x + j);
            vmax = _mm256_max_ps(vmax, _mm256_andnot_ps(sign, v));
            unordered = _mm256_or_ps(unordered, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        }
        if (_mm256_movemask_ps(unordered)) {  // a NaN: the reference's own order decides
            quantize_row_q8_K_ref(x, y + i, QK_K);
            continue;
        }
        __m128 m = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
        m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
        const float amax = _mm_cvtss_f32(m);
        if (!amax) {
            y[i].d = 0;
            memset(y[i].qs, 0, QK_K);
            continue;
        }
        const __m256 target = _mm256_set1_ps(amax);
        float max = 0;
        for (int j = 0; j < QK_K; j += 8) {
            const int hit = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x + j)), target, _CMP_EQ_OQ));
            if (hit) {
                max = x[j + __builtin_ctz(hit)];
                break;
            }
        }
        const float iscale = -127.f/max;
        if (!isfinite(iscale)) {  // subnormal activations: the reference's integer trick on infinities
            quantize_row_q8_K_ref(x, y + i, QK_K);
            continue;
        }
        const __m256 scale = _mm256_set1_ps(iscale);
        for (int j = 0; j < QK_K; j += 32) {
            const __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(scale, _mm256_loadu_ps(x + j)));
            const __m256i i1 = _mm256_cvtps_epi32(_mm256_mul_ps(scale, _mm256_loadu_ps(x + j + 8)));
            const __m256i i2 = _mm256_cvtps_epi32(_mm256_mul_ps(scale, _mm256_loadu_ps(x + j + 16)));
            const __m256i i3 = _mm256_cvtps_epi32(_mm256_mul_ps(scale, _mm256_loadu_ps(x + j + 24)));
            const __m256i packed = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
            _mm256_storeu_si256((__m256i *) (y[i].qs + j), _mm256_permutevar8x32_epi32(packed, perm));
        }
        for (int j = 0; j < QK_K/16; ++j) {
            int sum = 0;
            for (int ii = 0; ii < 16; ++ii) {
                sum += y[i].qs[j*16 + ii];
            }
            y[i].bsums[j] = sum;
        }
        y[i].d = 1/iscale;
    }
#else
    quantize_row_q8_K_ref(x, vy, k);
#endif
}
"""  # noqa: E501 - C text, matched and built as it is
LLAMA_CPU_PATCHES = (
    *LLAMA_CPU_PATCHES,
    ("ggml/src/ggml-cpu/arch/x86/quants.c", _Q8_K_REF, _Q8_K_AVX2, "the activations' q8_K quantisation in AVX2"),
)

# Flash attention for a drafted block. Below 64 query rows llama.cpp took its one-row kernel: per row, per
# head, per cached position, a dot product and an f16 multiply-add through function calls. At a 60 s
# Qwen3-ASR window's 800 cached positions that made a 16-row block cost 4.7 steps instead of 3.5. Its
# tiled kernel (f32 products of 64 x 64 tiles) now starts at 8 rows and multiplies only the tile's valid
# rows. It packed each K tile transposed, one converted scalar at a time, for every head and tile of
# queries; with fewer rows than a tile it now converts K row by row and computes KQ^T = K Q^T instead:
# the same sums in the same order (an FMA chain over the head's dimensions, from zero), so full tiles -
# prefill - are untouched and a block's rows are the same whichever way K is laid out.
_OPS = "ggml/src/ggml-cpu/ops.cpp"
_FA_FLAG_OLD = """\
        {
            float * Q_f32 = (float *)Q_q;
"""
_FA_FLAG_NEW = """\
        // Tingji: a tile of fewer rows keeps Q transposed (Q_q[dk][tq]) and K as rows, for KQ^T = K Q^T;
        // KQ^T lives in V32 until V is packed
        const bool k_rows = tile_rows < Q_TILE_SZ && tile_rows <= DV;
        {
            float * Q_f32 = (float *)Q_q;
"""
_FA_Q_OLD = """\
                memcpy(Q_f32 + tq * DK, pq, DK * sizeof(float));
            }
"""
_FA_Q_NEW = """\
                if (k_rows) {
                    for (int64_t dk = 0; dk < DK; dk++) {
                        Q_f32[dk * tile_rows + tq] = pq[dk];
                    }
                } else {
                    memcpy(Q_f32 + tq * DK, pq, DK * sizeof(float));
                }
            }
"""
_FA_K_OLD = """\
            for (int tk = 0; tk < kv_tile; tk++) {
                const char * k_data = (const char *)k->data + (ic + tk)*nbk1 + ik2*nbk2 + ik3*nbk3;
                if (kv_type == GGML_TYPE_F16) {
                    const ggml_fp16_t * k_f16 = (const ggml_fp16_t *)k_data;
"""
_FA_K_NEW = """\
            if (k_rows) {
                for (int tk = 0; tk < kv_tile; tk++) {
                    const char * k_data = (const char *)k->data + (ic + tk)*nbk1 + ik2*nbk2 + ik3*nbk3;
                    if (kv_type == GGML_TYPE_F16) {
                        ggml_cpu_fp16_to_fp32((const ggml_fp16_t *)k_data, K_f32 + tk * DK, DK);
                    } else {
                        memcpy(K_f32 + tk * DK, k_data, DK * sizeof(float));
                    }
                }
                float * KQT = V32;
                memset(KQT, 0, KV_TILE_SZ * tile_rows * sizeof(float));
                simd_gemm(KQT, K_f32, (const float *)Q_q, KV_TILE_SZ, DK, tile_rows);
                for (int tq = 0; tq < tile_rows; tq++) {
                    for (int tk = 0; tk < KV_TILE_SZ; tk++) {
                        KQ[tq * KV_TILE_SZ + tk] = KQT[tk * tile_rows + tq];
                    }
                }
                if (kv_tile < KV_TILE_SZ) {
                    memset(V32 + kv_tile * DV, 0, (KV_TILE_SZ - kv_tile) * DV * sizeof(float));
                }
            } else {
            for (int tk = 0; tk < kv_tile; tk++) {
                const char * k_data = (const char *)k->data + (ic + tk)*nbk1 + ik2*nbk2 + ik3*nbk3;
                if (kv_type == GGML_TYPE_F16) {
                    const ggml_fp16_t * k_f16 = (const ggml_fp16_t *)k_data;
"""
_FA_GEMM_OLD = """\
            memset(KQ, 0, Q_TILE_SZ * KV_TILE_SZ * sizeof(float));
            simd_gemm(KQ, (const float *)Q_q, K_f32, Q_TILE_SZ, DK, KV_TILE_SZ);
            ggml_vec_scale_f32(Q_TILE_SZ * KV_TILE_SZ, KQ, scale);
"""
_FA_GEMM_NEW = """\
            memset(KQ, 0, tile_rows * KV_TILE_SZ * sizeof(float));
            simd_gemm(KQ, (const float *)Q_q, K_f32, tile_rows, DK, KV_TILE_SZ);
            }
            ggml_vec_scale_f32(tile_rows * KV_TILE_SZ, KQ, scale);
"""
_FA_ROWS = (  # the loops over a tile's rows: its valid ones (rows past them are neither read nor written)
    (
        "            if (kv_tile < KV_TILE_SZ) {\n                for (int tq = 0; tq < Q_TILE_SZ; tq++) {\n",
        "KQ's padding",
    ),
    ("            bool skip[Q_TILE_SZ] = {};\n\n            for (int tq = 0; tq < Q_TILE_SZ; tq++) {\n", "the softmax"),
    ("            for (int tq = 0; tq < Q_TILE_SZ; tq++) {\n                if (skip[tq]) {\n", "the skipped rows"),
    ("            simd_gemm(VKQ32, KQ, V32, Q_TILE_SZ, KV_TILE_SZ, DV);\n", "VKQ"),
)
_FA_TILED_OLD = """\
        static constexpr int64_t Q_TILE_SZ  = ggml_fa_tile_config::Q;
        bool use_tiled = !use_ref &&
                               (q->type == GGML_TYPE_F32 &&
                                kv_is_f32_or_f16 &&
                                k->type == v->type &&
                                neq1 >= Q_TILE_SZ);
"""
_FA_TILED_NEW = """\
        // Tingji: the tiled kernel from 8 query rows (a drafted block), not a full tile of 64
        static constexpr int64_t TILED_MIN_ROWS = 8;
        bool use_tiled = !use_ref &&
                               (q->type == GGML_TYPE_F32 &&
                                kv_is_f32_or_f16 &&
                                k->type == v->type &&
                                neq1 >= TILED_MIN_ROWS);
"""
LLAMA_CPU_PATCHES = (
    *LLAMA_CPU_PATCHES,
    (_OPS, _FA_FLAG_OLD, _FA_FLAG_NEW, "attention: a short tile's layout"),
    (_OPS, _FA_Q_OLD, _FA_Q_NEW, "attention: Q transposed in a short tile"),
    (_OPS, _FA_K_OLD, _FA_K_NEW, "attention: K converted row by row, not packed transposed scalar by scalar"),
    (_OPS, _FA_GEMM_OLD, _FA_GEMM_NEW, "attention: KQ over the tile's valid rows"),
    *(
        (_OPS, old, old.replace("Q_TILE_SZ;", "tile_rows;").replace("Q_TILE_SZ,", "tile_rows,"), f"attention: {why}")
        for old, why in _FA_ROWS
    ),
    (_OPS, _FA_TILED_OLD, _FA_TILED_NEW, "attention: the tiled kernel for a drafted block"),
)

# Blocks of 4-64 rows in the tiled K-quant kernel: llama_tiled_patches.py.
LLAMA_CPU_PATCHES = (*LLAMA_CPU_PATCHES, *TILED_BLOCK_PATCHES)
