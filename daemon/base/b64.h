/* b64.h: base64 as protobuf's JSON mapping writes bytes (standard or
 * URL-safe alphabet, padded or not), read by the decoders of JSON pushes
 * (Pyroscope's PushRequest, OTLP's profiles). */
#ifndef PROFD_B64_H
#define PROFD_B64_H

#include <stddef.h>
#include <stdint.h>

/* The n characters at s decoded into out (room for n * 3 / 4 + 1
 * bytes), their count into *outlen: 0, or -1 for a character that is
 * not base64 (its offset into *bad) or a length no base64 has (*bad is
 * then n). */
int b64_decode(const char *s, size_t n, uint8_t *out, size_t *outlen,
    size_t *bad);

#endif
