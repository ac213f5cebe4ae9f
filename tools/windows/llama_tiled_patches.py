"""Tingji's patches to llama.cpp's tiled K-quant kernel for a drafted block of 4-64 rows (llama_patches.py
appends them to LLAMA_CPU_PATCHES).

A block's rows cost what their 16-column bands of products cost, and the kernel padded every band to 16
columns and took its standard path above 16 rows, which unpacks each 256-value slab of 128 weight rows
at a time. Here:
- a band with at most 8 valid columns takes a half microtile (8 columns; AVX2 and AVX-512 VNNI), whose
  columns are the full one's bit for bit;
- the narrow path (weights unpacked 16 rows at a time over a long stretch of K, the next group prefetched)
  takes up to four bands, each group's weights unpacked once for all of them; its src1 sums and scales sit
  at a row stride of 64 for that (AVX2 builds; the others keep one band);
- blocks of 4-7 rows take the tiled kernel too (vec_dot costs a one-row pass per row there).
Every row of 8 rows and more is the float it was; a block of 4-7 rows now gives what a longer batch gives
for the same rows, as blocks of 8 and more already did. Measured in benchmarks/README.md ("Blocks of 4-64
rows").
"""

# ruff: noqa: E501 - C text, matched and built as it is
from __future__ import annotations

_TILED = "ggml/src/ggml-cpu/tiled/tiled.cpp"
_TILED_KERNEL = "ggml/src/ggml-cpu/tiled/tiled-kernel.cpp"
_TILED_HEADER = "ggml/src/ggml-cpu/tiled/tiled-kernel.h"

_HALF_DECL_OLD = """\
template <int SUBBLK, bool HAS_MIN, int BIAS, bool ACTBIAS>
void tiled_run_microtile(const tiled_tile_src0 & src0, const tiled_tile_src1 & src1,
                         int i0, int j0, int num_k, int slab, float * buf, int buf_stride);
"""
_HALF_DECL_NEW = (
    _HALF_DECL_OLD
    + """\

// Tingji: the narrow path (num_k > 1 slabs, 1-64 src1 rows) keeps src1's per-16 code sums and scales at
// this row stride, so that it can hold up to four 16-row bands (AVX2 and AVX-512 kernels; the others keep
// one band of 16). num_k <= 3 there (ggml_tiled_narrow_k_extent), so 3 * 16 * 64 sums fit.
#if defined(__AVX2__)
#define TILED_NARROW_STRIDE 64
#else
#define TILED_NARROW_STRIDE TILED_MICRO
#endif
#define TILED_NARROW_MAX_ROWS TILED_NARROW_STRIDE

// The same microtile over src1 columns [j0, j0 + 8) only, for a band with at most 8 valid columns;
// each column's sums are the full microtile's, bit for bit (Tingji)
template <int SUBBLK, bool HAS_MIN, int BIAS, bool ACTBIAS>
void tiled_run_microtile_half(const tiled_tile_src0 & src0, const tiled_tile_src1 & src1,
                              int i0, int j0, int num_k, int slab, float * buf, int buf_stride);
"""
)

_VNNI_HALF_OLD = "#endif // __AVX512VNNI__ && __AVX512VL__\n"
_VNNI_HALF_NEW = """\
// The 8x16 band pass over 8 src1 columns (Tingji): the same lane-wise integer and float steps on
// 256-bit registers, the first 32 bytes of each interleaved 64-byte code line (columns 0-7)
template <int SUBBLK, bool HAS_MIN, int BIAS, int NK>
static void tiled_run_micro_vnni_8x8(const tiled_tile_src0 & src0, const tiled_tile_src1 & src1,
                                     int i0, int j0, int num_k, int slab, float * buf, int buf_stride) {
    constexpr int NB = TILED_TILE_K / SUBBLK;
    constexpr int NS = SUBBLK / 16;
    constexpr int NG = SUBBLK / 4;
    constexpr int NUM_ROWS = 8;
    const int nkr  = (NK > 0) ? NK : num_k;
    const int seff = (NK > 0) ? 0 : slab;
    const int qk_stride = nkr * TILED_TILE_K;
    const int qk_off = seff * TILED_TILE_K;
    const int nb_stride = NB * nkr;
    const int nb_off = seff * NB;
    const int bs_stride = (nkr == 1) ? TILED_TILE_ROWS : TILED_NARROW_STRIDE;
    const int bs_off = seff * TILED_MICRO;

    const __m256 d1_vec = _mm256_load_ps(&src1.d[seff * TILED_NARROW_STRIDE + j0]);
    __m256i s1_acc[NUM_ROWS];
    __m256i s2_acc[NUM_ROWS];
    for (int t = 0; t < NUM_ROWS; t++) { s1_acc[t] = _mm256_setzero_si256(); s2_acc[t] = _mm256_setzero_si256(); }

    const int32_t * bsums = src1.bsums;
    for (int s = 0; s < NB; s++) {
        __m256i bsums32 = _mm256_load_si256((const __m256i *) &bsums[(bs_off + s * NS) * bs_stride + j0]);
        for (int u = 1; u < NS; u++) {
            bsums32 = _mm256_add_epi32(bsums32, _mm256_load_si256((const __m256i *) &bsums[(bs_off + s * NS + u) * bs_stride + j0]));
        }
        __m256i bias32 = _mm256_setzero_si256();
        if constexpr (BIAS != 0) {
            bias32 = _mm256_mullo_epi32(bsums32, _mm256_set1_epi32(BIAS));
        }
        __m256i acc8[NUM_ROWS];
        for (int t = 0; t < NUM_ROWS; t++) { acc8[t] = _mm256_setzero_si256(); }
#ifdef __GNUC__
        #pragma GCC unroll 8
#endif
        for (int g = 0; g < NG; g++) {
            const int kg = s * NG + g;
            const __m256i codes = _mm256_load_si256((const __m256i *) &src1.q[(j0 / TILED_MICRO) * (TILED_MICRO * qk_stride)
                + qk_off + (kg % TILED_MICRO) * qk_stride + (kg / TILED_MICRO) * (TILED_MICRO * 4)]);
            for (int t = 0; t < NUM_ROWS; t++) {
                const uint32_t u4 = *(const uint32_t *) &src0.q[(i0 + t) * qk_stride + qk_off + kg * 4];
                acc8[t] = _mm256_dpbusd_epi32(acc8[t], _mm256_set1_epi32((int) u4), codes);
            }
        }
        for (int t = 0; t < NUM_ROWS; t++) {
            const int ar = i0 + t;
            __m256i rawi = acc8[t];
            if constexpr (BIAS != 0) {
                rawi = _mm256_sub_epi32(rawi, bias32);
            }
            s1_acc[t] = _mm256_add_epi32(s1_acc[t],
                _mm256_mullo_epi32(rawi, _mm256_set1_epi32(src0.scales[ar * nb_stride + nb_off + s])));
            if constexpr (HAS_MIN) {
                s2_acc[t] = _mm256_add_epi32(s2_acc[t],
                    _mm256_mullo_epi32(bsums32, _mm256_set1_epi32(src0.mins[ar * nb_stride + nb_off + s])));
            }
        }
    }
    for (int t = 0; t < NUM_ROWS; t++) {
        const int ar = i0 + t;
        const int d_off = seff * TILED_MICRO + ar;
        __m256 result = _mm256_mul_ps(_mm256_cvtepi32_ps(s1_acc[t]), _mm256_set1_ps(src0.d[d_off]));
        if constexpr (HAS_MIN) {
            result = _mm256_fnmadd_ps(_mm256_set1_ps(src0.dmin[d_off]), _mm256_cvtepi32_ps(s2_acc[t]), result);
        }
        float * p = &buf[(i0 + t) * buf_stride + j0];
        _mm256_store_ps(p, _mm256_add_ps(_mm256_load_ps(p), _mm256_mul_ps(result, d1_vec)));
    }
}

#endif // __AVX512VNNI__ && __AVX512VL__
"""

_AVX2_SIG_OLD = """\
template <int SUBBLK, bool HAS_MIN, int BIAS, int NK, bool ACTBIAS>
static void tiled_run_microtile_avx2(const tiled_tile_src0 & src0, const tiled_tile_src1 & src1,
"""
_AVX2_SIG_NEW = """\
template <int SUBBLK, bool HAS_MIN, int BIAS, int NK, bool ACTBIAS, int NCOLS = TILED_MICRO>
static void tiled_run_microtile_avx2(const tiled_tile_src0 & src0, const tiled_tile_src1 & src1,
"""
_AVX2_LOOP_OLD = """\
        for (int g = 0; g < TILED_MICRO; g += GROUP) {
            // Pre-calculate weight pointers for this column group
"""
_AVX2_LOOP_NEW = """\
        for (int g = 0; g < NCOLS; g += GROUP) {  // NCOLS: 8 for a half microtile (Tingji)
            // Pre-calculate weight pointers for this column group
"""

_HALF_DEF_OLD = """\
template void tiled_repack_src0<16>(tiled_tile_src0 * tile, int n_rows, int num_k, int BIAS, bool corr);
"""
_HALF_DEF_NEW = (
    _HALF_DEF_OLD
    + """\

// Tingji: the half microtile (tiled-kernel.h); without AVX2 the full one, whose extra columns nobody reads
template <int SUBBLK, bool HAS_MIN, int BIAS, bool ACTBIAS>
void tiled_run_microtile_half(const tiled_tile_src0 & src0, const tiled_tile_src1 & src1,
                              int i0, int j0, int num_k, int slab, float * buf, int buf_stride) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__) && defined(__AVX512DQ__)
    if (num_k == 1) {
        tiled_run_micro_vnni_8x8<SUBBLK, HAS_MIN, BIAS, 1>(src0, src1, i0,     j0, num_k, slab, buf, buf_stride);
        tiled_run_micro_vnni_8x8<SUBBLK, HAS_MIN, BIAS, 1>(src0, src1, i0 + 8, j0, num_k, slab, buf, buf_stride);
    } else {
        tiled_run_micro_vnni_8x8<SUBBLK, HAS_MIN, BIAS, 0>(src0, src1, i0,     j0, num_k, slab, buf, buf_stride);
        tiled_run_micro_vnni_8x8<SUBBLK, HAS_MIN, BIAS, 0>(src0, src1, i0 + 8, j0, num_k, slab, buf, buf_stride);
    }
#elif defined(__AVX2__)
    if (num_k == 1) {
        tiled_run_microtile_avx2<SUBBLK, HAS_MIN, BIAS, 1, ACTBIAS, 8>(src0, src1, i0, j0, num_k, slab, buf, buf_stride);
    } else {
        tiled_run_microtile_avx2<SUBBLK, HAS_MIN, BIAS, 0, ACTBIAS, 8>(src0, src1, i0, j0, num_k, slab, buf, buf_stride);
    }
#else
    tiled_run_microtile<SUBBLK, HAS_MIN, BIAS, ACTBIAS>(src0, src1, i0, j0, num_k, slab, buf, buf_stride);
#endif
}

#define TILED_HALF_INSTANCE(SUBBLK, HAS_MIN, BIAS, ACTBIAS) \\
    template void tiled_run_microtile_half<SUBBLK, HAS_MIN, BIAS, ACTBIAS>(const tiled_tile_src0 & src0, \\
        const tiled_tile_src1 & src1, int i0, int j0, int num_k, int slab, float * buf, int buf_stride);
TILED_HALF_INSTANCE(32, true, 0, false)
TILED_HALF_INSTANCE(32, false, 128, false)
TILED_HALF_INSTANCE(32, false, 128, true)
TILED_HALF_INSTANCE(16, false, 128, true)
TILED_HALF_INSTANCE(16, false, 32, true)
TILED_HALF_INSTANCE(16, false, 4, true)
TILED_HALF_INSTANCE(16, true, 0, false)
"""
)

_NARROW_OLD = """\
                        float * buf = ws->acc + (ir0 - iir0) * TILED_TILE_ROWS;
                        for (int slab = 0; slab < num_k; slab++) {
                            tiled_run_microtile<SUBBLK, HAS_MIN, BIAS, ACTBIAS>(ws->src0, ws->src1, 0, 0, num_k, slab, buf, TILED_TILE_ROWS);
                        }
"""
_STANDARD_OLD = """\
                        for (int64_t ir0 = iir0; ir0 < iir0_end; ir0 += MICRO) {
                            tiled_run_microtile<SUBBLK, HAS_MIN, BIAS, ACTBIAS>(ws->src0, ws->src1,
                                (int) (ir0 - iir0), (int) (ir1 - iir1), 1, 0,
                                ws->acc, TILED_TILE_ROWS);
                        }
"""
_STANDARD_NEW = """\
                        const bool half = iir1_end - ir1 <= MICRO / 2;  // the band's valid columns only (Tingji)
                        for (int64_t ir0 = iir0; ir0 < iir0_end; ir0 += MICRO) {
                            if (half) {
                                tiled_run_microtile_half<SUBBLK, HAS_MIN, BIAS, ACTBIAS>(ws->src0, ws->src1,
                                    (int) (ir0 - iir0), (int) (ir1 - iir1), 1, 0,
                                    ws->acc, TILED_TILE_ROWS);
                            } else {
                                tiled_run_microtile<SUBBLK, HAS_MIN, BIAS, ACTBIAS>(ws->src0, ws->src1,
                                    (int) (ir0 - iir0), (int) (ir1 - iir1), 1, 0,
                                    ws->acc, TILED_TILE_ROWS);
                            }
                        }
"""

# Where src1's narrow layout is written (the unpack) and read (the VNNI and AVX2 kernels): its row stride for
# sums and scales becomes TILED_NARROW_STRIDE (the header patch), in the same expressions
_NARROW_STRIDE_SITES = (
    (
        _TILED,
        """\
    const int bs_stride = (num_k == 1) ? TILED_TILE_ROWS : TILED_MICRO;
    const int n16 = TILED_TILE_K / TILED_MICRO;
""",
        "the unpack's src1 sums",
    ),
    (
        _TILED,
        """\
                tile->d[slab * TILED_MICRO + r] = x.d;
            } else {
                for (int s = 0; s < n16; s++) { tile->bsums[(slab * n16 + s) * bs_stride + r] = 0; }
                tile->d[slab * TILED_MICRO + r] = 0.0f;
""",
        "the unpack's src1 scales",
    ),
    (
        _TILED_KERNEL,
        """\
    const int bs_stride = (nkr == 1) ? TILED_TILE_ROWS : TILED_MICRO;
    const int bs_off = seff * TILED_MICRO;

    const __m512 d1_vec = _mm512_load_ps(&src1.d[seff * TILED_MICRO + j0]);
""",
        "AVX-512 VNNI",
    ),
    (
        _TILED_KERNEL,
        """\
    const int bs_stride = (nkr == 1) ? TILED_TILE_ROWS : TILED_MICRO;
    const int bs_off = seff * TILED_MICRO;

    // Horizontal sum helper: converts 8x32-bit int lane inside a YMM register to scalar int32
""",
        "AVX2's sums",
    ),
    (
        _TILED_KERNEL,
        "            const __m256 src1_d_vec = _mm256_load_ps(&src1.d[seff * TILED_MICRO + j0 + g]);\n",
        "AVX2's scales",
    ),
)


def _narrow_stride(old: str) -> str:
    return (
        old.replace("? TILED_TILE_ROWS : TILED_MICRO;", "? TILED_TILE_ROWS : TILED_NARROW_STRIDE;")
        .replace("seff * TILED_MICRO + j0", "seff * TILED_NARROW_STRIDE + j0")
        .replace("slab * TILED_MICRO + r", "slab * TILED_NARROW_STRIDE + r")
    )


_BANDS_COND_OLD = """\
            if (n_src1 <= TILED_MICRO) {
                // narrow path: if we have few enough rows, we're memory bound
"""
_BANDS_COND_NEW = """\
            if (n_src1 <= TILED_NARROW_MAX_ROWS) {
                // narrow path: if we have few enough rows, we're memory bound. Up to four 16-row
                // bands of them (Tingji): each weight group unpacked once for all its bands
                const int n_bands = (n_src1 + MICRO - 1) / MICRO;
"""
_BANDS_REPACK_OLD = """\
                    tiled_unpack_src1_q8_K(rows, n_src1, &ws->src1, kstart, num_k);
                    // repack the whole k_extent chunk in place, if kernel wants to: num_k slabs x 4 tiles, 16 rows, row stride num_k*256
                    tiled_repack_src1(&ws->src1, 0, num_k, ACTBIAS);
"""
_BANDS_REPACK_NEW = """\
                    tiled_unpack_src1_q8_K(rows, n_src1, &ws->src1, kstart, num_k);
                    // repack the whole k_extent chunk in place, if kernel wants to: num_k slabs x 4 tiles, 16 rows, row stride num_k*256
                    for (int band = 0; band < n_bands; band++) {
                        tiled_repack_src1(&ws->src1, band * MICRO, num_k, ACTBIAS);
                    }
"""
_BANDS_MT_NEW = """\
                        float * buf = ws->acc + (ir0 - iir0) * TILED_TILE_ROWS;
                        for (int slab = 0; slab < num_k; slab++) {
                            for (int band = 0; band < n_bands; band++) {
                                const int j0 = band * MICRO;
                                if (n_src1 - j0 <= MICRO / 2) {  // the band's valid columns only (Tingji)
                                    tiled_run_microtile_half<SUBBLK, HAS_MIN, BIAS, ACTBIAS>(ws->src0, ws->src1, 0, j0, num_k, slab, buf, TILED_TILE_ROWS);
                                } else {
                                    tiled_run_microtile<SUBBLK, HAS_MIN, BIAS, ACTBIAS>(ws->src0, ws->src1, 0, j0, num_k, slab, buf, TILED_TILE_ROWS);
                                }
                            }
                        }
"""

_MIN_OLD = """\
    //  Profitable at rows >= 8, take even when unprofitable if we're forced
    return rows >= 8 || ggml_tiled_matmul_forced();
"""
_MIN_NEW = """\
    //  Profitable at rows >= 4 with Tingji's half microtile (5-7 rows cost 3.9-5.2 one-row passes on
    //  vec_dot, about 3 here); take even when unprofitable if we're forced
    return rows >= 4 || ggml_tiled_matmul_forced();
"""

TILED_BLOCK_PATCHES = (
    (_TILED_HEADER, _HALF_DECL_OLD, _HALF_DECL_NEW, "blocks: the half microtile, the narrow path's stride"),
    (_TILED_KERNEL, _VNNI_HALF_OLD, _VNNI_HALF_NEW, "blocks: the half microtile on AVX-512 VNNI"),
    (_TILED_KERNEL, _AVX2_SIG_OLD, _AVX2_SIG_NEW, "blocks: the half microtile on AVX2"),
    (_TILED_KERNEL, _AVX2_LOOP_OLD, _AVX2_LOOP_NEW, "blocks: the half microtile on AVX2"),
    (_TILED_KERNEL, _HALF_DEF_OLD, _HALF_DEF_NEW, "blocks: the half microtile's dispatch"),
    (_TILED, _STANDARD_OLD, _STANDARD_NEW, "blocks: a ragged last band of more than 64 rows"),
    *(
        (path, old, _narrow_stride(old), f"blocks: the narrow path's bands in {why}")
        for path, old, why in _NARROW_STRIDE_SITES
    ),
    (_TILED, _BANDS_COND_OLD, _BANDS_COND_NEW, "blocks: 17-64 rows took the standard path"),
    (_TILED, _BANDS_REPACK_OLD, _BANDS_REPACK_NEW, "blocks: each band's codes repacked"),
    (
        _TILED,
        _NARROW_OLD,
        _BANDS_MT_NEW,
        "blocks: each weight group's products for every band, a half band 8 columns wide",
    ),
    (_TILED, _MIN_OLD, _MIN_NEW, "blocks: 4-7 rows cost a one-row pass a row on vec_dot"),
)
