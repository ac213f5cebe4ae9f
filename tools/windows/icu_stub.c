/* icuuc.dll for Wine: Qt6Core links Windows 10's system ICU, which Wine lacks, and imports only these
 * converter functions from it (codecs beyond Qt's built-in UTF-8/16/32 and Latin-1). Every converter
 * fails to open and none is listed, so Qt keeps to its built-in codecs. tools/windows/setup checks
 * that Qt6Core imports nothing else from icuuc.dll before it builds this. Signatures as in ICU's
 * ucnv.h / ucnv_cb.h; handles and callback arguments are opaque here. */
#include <stddef.h>
#include <stdint.h>

#define EXPORT __declspec(dllexport)
#define U_UNSUPPORTED_ERROR 16

typedef int32_t UErrorCode;
typedef uint16_t UChar;
typedef void UConverter;
typedef void (*Callback)(void);

static void fail(UErrorCode *err) {
    if (err != NULL && *err <= 0) *err = U_UNSUPPORTED_ERROR;
}

EXPORT UConverter *ucnv_open(const char *name, UErrorCode *err) {
    (void)name;
    fail(err);
    return NULL;
}
EXPORT void ucnv_close(UConverter *cnv) { (void)cnv; }
EXPORT void ucnv_reset(UConverter *cnv) { (void)cnv; }
EXPORT int8_t ucnv_getMaxCharSize(const UConverter *cnv) {
    (void)cnv;
    return 1;
}
EXPORT const char *ucnv_getName(const UConverter *cnv, UErrorCode *err) {
    (void)cnv;
    fail(err);
    return NULL;
}
EXPORT void ucnv_getToUCallBack(const UConverter *cnv, Callback *action, const void **context) {
    (void)cnv;
    if (action != NULL) *action = NULL;
    if (context != NULL) *context = NULL;
}
EXPORT void ucnv_getFromUCallBack(const UConverter *cnv, Callback *action, const void **context) {
    ucnv_getToUCallBack(cnv, action, context);
}
EXPORT void ucnv_setToUCallBack(UConverter *cnv, Callback action, const void *context, Callback *old_action,
                                const void **old_context, UErrorCode *err) {
    (void)cnv, (void)action, (void)context;
    ucnv_getToUCallBack(NULL, old_action, old_context);
    fail(err);
}
EXPORT void ucnv_setFromUCallBack(UConverter *cnv, Callback action, const void *context, Callback *old_action,
                                  const void **old_context, UErrorCode *err) {
    ucnv_setToUCallBack(cnv, action, context, old_action, old_context, err);
}
EXPORT void UCNV_FROM_U_CALLBACK_SUBSTITUTE(const void *context, void *args, const UChar *units, int32_t length,
                                            int32_t code_point, int reason, UErrorCode *err) {
    (void)context, (void)args, (void)units, (void)length, (void)code_point, (void)reason;
    fail(err);
}
EXPORT void UCNV_TO_U_CALLBACK_SUBSTITUTE(const void *context, void *args, const char *units, int32_t length,
                                          int reason, UErrorCode *err) {
    (void)context, (void)args, (void)units, (void)length, (void)reason;
    fail(err);
}
EXPORT void ucnv_cbToUWriteUChars(void *args, const UChar *source, int32_t length, int32_t offset_index,
                                  UErrorCode *err) {
    (void)args, (void)source, (void)length, (void)offset_index;
    fail(err);
}
EXPORT void ucnv_cbFromUWriteUChars(void *args, const UChar **source, const UChar *source_limit,
                                    int32_t offset_index, UErrorCode *err) {
    (void)args, (void)source, (void)source_limit, (void)offset_index;
    fail(err);
}
EXPORT void ucnv_toUnicode(UConverter *cnv, UChar **target, const UChar *target_limit, const char **source,
                           const char *source_limit, int32_t *offsets, int8_t flush, UErrorCode *err) {
    (void)cnv, (void)target, (void)target_limit, (void)source, (void)source_limit, (void)offsets, (void)flush;
    fail(err);
}
EXPORT void ucnv_fromUnicode(UConverter *cnv, char **target, const char *target_limit, const UChar **source,
                             const UChar *source_limit, int32_t *offsets, int8_t flush, UErrorCode *err) {
    (void)cnv, (void)target, (void)target_limit, (void)source, (void)source_limit, (void)offsets, (void)flush;
    fail(err);
}
EXPORT int32_t ucnv_toUCountPending(const UConverter *cnv, UErrorCode *err) {
    (void)cnv;
    fail(err);
    return 0;
}
EXPORT int32_t ucnv_fromUCountPending(const UConverter *cnv, UErrorCode *err) {
    (void)cnv;
    fail(err);
    return 0;
}
EXPORT const char *ucnv_getStandardName(const char *name, const char *standard, UErrorCode *err) {
    (void)name, (void)standard;
    fail(err);
    return NULL;
}
EXPORT const char *ucnv_getAvailableName(int32_t n) {
    (void)n;
    return NULL;
}
EXPORT int32_t ucnv_countAvailable(void) { return 0; }
