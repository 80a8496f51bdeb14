// relay.ack from docs/dialects/relay.md (RELAY-W3): exactly 8 bytes, the seq big-endian.
#include "cdecoders.h"

int cd_relay_ack_decode(const uint8_t *in, size_t length, uint64_t *seq) {
    if (length != 8) return CD_LENGTH_MISMATCH;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | in[i];
    *seq = v;
    return CD_OK;
}
