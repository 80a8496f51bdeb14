// bitchat.packet and bitchat.fragment from docs/dialects/bitchat.md: big-endian fields read
// in the table's order (BITCHAT-W1), compressed payloads inflated by zlib, raw DEFLATE first
// (BITCHAT-W5, W6), then nothing or one PKCS#7 pad (BITCHAT-W7).
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cdecoders.h"

enum { MAX_PAYLOAD = 1179760, MAX_RATIO = 50000 };

static uint64_t be(const uint8_t *p, int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; i++) v = v << 8 | p[i];
    return v;
}

/// One whole stream of `window_bits` kind, ending at the end of the input, giving exactly
/// `size` bytes into `out`.
static int inflate_exactly(const uint8_t *in, size_t length, uint8_t *out, uint32_t size, int window_bits) {
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, window_bits) != Z_OK) return 0;
    s.next_in = (Bytef *)in;
    s.avail_in = (uInt)length;
    s.next_out = out;
    s.avail_out = size;
    int rc = inflate(&s, Z_FINISH);
    int ok = rc == Z_STREAM_END && s.avail_in == 0 && s.total_out == size;
    inflateEnd(&s);
    return ok;
}

int cd_bitchat_packet_decode(const uint8_t *in, size_t length, cd_bitchat_packet *p) {
    memset(p, 0, sizeof *p);
    size_t o = 0;
#define NEED(n) do { if (length - o < (size_t)(n)) return CD_TRUNCATED; } while (0)
    NEED(1);
    p->version = in[o++];
    if (p->version != 1 && p->version != 2) return CD_UNKNOWN_TYPE;
    const int width = p->version == 2 ? 4 : 2;
    NEED(11 + width);
    p->type = in[o];
    p->ttl = in[o + 1];
    p->timestamp = be(in + o + 2, 8);
    p->flags = in[o + 10];
    o += 11;
    const uint64_t payload_length = be(in + o, width);
    o += width;
    if (payload_length > MAX_PAYLOAD) return CD_TOO_LARGE;
    NEED(8);
    p->sender = in + o;
    o += 8;
    if (p->flags & 0x01) {
        NEED(8);
        p->recipient = in + o;
        o += 8;
    }
    if (p->version == 2 && (p->flags & 0x08)) {
        NEED(1);
        p->route_count = in[o++];
        if (p->route_count == 0) return CD_VALUE_OUT_OF_RANGE;
        NEED(8 * p->route_count);
        p->route = in + o;
        o += 8 * p->route_count;
    }
    if (p->flags & 0x04) {
        if (payload_length <= (uint64_t)width) return CD_LENGTH_MISMATCH;
        NEED(payload_length);
        const uint64_t original = be(in + o, width);
        p->compressed_data = in + o + width;
        p->compressed_length = payload_length - width;
        o += payload_length;
        if (original > MAX_PAYLOAD) return CD_TOO_LARGE;
        if (original > (uint64_t)MAX_RATIO * p->compressed_length) return CD_RATIO_TOO_HIGH;
        if (original == 0) return CD_BAD_COMPRESSION;
        p->original_size = (uint32_t)original;
        p->inflated = malloc(original);
        if (!p->inflated) return CD_TOO_LARGE;
        if (inflate_exactly(p->compressed_data, p->compressed_length, p->inflated, p->original_size, -15)) {
            p->compressed = 1;
        } else if (inflate_exactly(p->compressed_data, p->compressed_length, p->inflated, p->original_size, 15)) {
            p->compressed = 2;
        } else {
            cd_bitchat_packet_free(p);
            return CD_BAD_COMPRESSION;
        }
        p->payload = p->inflated;
        p->payload_length = original;
    } else {
        NEED(payload_length);
        p->payload = in + o;
        p->payload_length = payload_length;
        o += payload_length;
    }
    if (p->flags & 0x02) {
        if (length - o < 64) {
            cd_bitchat_packet_free(p);
            return CD_TRUNCATED;
        }
        p->signature = in + o;
        o += 64;
    }
#undef NEED
    // BITCHAT-W7: the frame was read from the raw bytes; what follows is nothing or one pad.
    const size_t rest = length - o;
    if (rest > 0) {
        const uint8_t pad = in[length - 1];
        int ok = rest == pad;
        for (size_t i = o; ok && i < length; i++) ok = in[i] == pad;
        if (!ok) {
            cd_bitchat_packet_free(p);
            return CD_TRAILING_BYTES;
        }
        p->padding = pad;
    }
    return CD_OK;
}

void cd_bitchat_packet_free(cd_bitchat_packet *p) {
    free(p->inflated);
    p->inflated = NULL;
}

int cd_bitchat_fragment_decode(const uint8_t *in, size_t length, cd_bitchat_fragment *f) {
    if (length < 13) return CD_TRUNCATED;
    f->fragment_id = in;
    f->index = (unsigned)be(in + 8, 2);
    f->total = (unsigned)be(in + 10, 2);
    f->original_type = in[12];
    f->data = in + 13;
    f->data_length = length - 13;
    if (f->total < 1 || f->total > 10000 || f->index >= f->total) return CD_CHUNK_INDEX_OUT_OF_RANGE;
    return CD_OK;
}
