/* Force-included into the C files of llama.cpp's Windows build: what Debian bookworm's mingw-w64 10
 * headers lack and ggml-cpu.c uses (it arrived in mingw-w64 11). Layout and values as in Windows' SDK. */
#pragma once
#ifdef _WIN32
#ifndef THREAD_POWER_THROTTLING_CURRENT_VERSION
#define THREAD_POWER_THROTTLING_CURRENT_VERSION 1
#define THREAD_POWER_THROTTLING_EXECUTION_SPEED 0x1
typedef struct _THREAD_POWER_THROTTLING_STATE {
    unsigned long Version;
    unsigned long ControlMask;
    unsigned long StateMask;
} THREAD_POWER_THROTTLING_STATE;
#endif
#endif
