// peat.document with its peripheral and emergency sections, from docs/dialects/peat.md
// (PEAT-W1...W4): little-endian, every limit checked before what it limits is read.
#include <math.h>
#include <string.h>

#include "cdecoders.h"

enum { MAX_VALUE = 512, MAX_ENTRIES = 256, MAX_ACKS = 256 };
static const uint64_t MIN_TIMESTAMP = 1577836800000ULL;   // 2020-01-01, ms

static uint64_t le(const uint8_t *p, int width) {
    uint64_t v = 0;
    for (int i = width - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static float le_float(const uint8_t *p) {
    uint32_t bits = (uint32_t)le(p, 4);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/// Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
static int valid_utf8(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t len;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) len = 2;
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
        else if (c >= 0xF0 && c <= 0xF4) { len = 4; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
        else return 0;
        if (n - i < len) return 0;
        if (s[i + 1] < lo || s[i + 1] > hi) return 0;
        for (size_t k = 2; k < len; k++) if (s[i + k] < 0x80 || s[i + k] > 0xBF) return 0;
        i += len;
    }
    return 1;
}

static int timestamp_ok(uint64_t ts) { return ts == 0 || ts >= MIN_TIMESTAMP; }
static int in_range(float v, float lo, float hi) { return isfinite(v) && v >= lo && v <= hi; }

int cd_peat_peripheral_decode(const uint8_t *in, size_t length, cd_peat_peripheral *p) {
    memset(p, 0, sizeof *p);
    if (length < 34) return CD_TRUNCATED;
    p->id = (uint32_t)le(in, 4);
    if (p->id == 0) return CD_VALUE_OUT_OF_RANGE;
    p->parent = (uint32_t)le(in + 4, 4);
    p->type = in[8];
    if (p->type > 3) return CD_UNKNOWN_TYPE;
    const uint8_t *callsign = in + 9;
    size_t n = 0;
    while (n < 12 && callsign[n] != 0) n++;
    for (size_t k = n; k < 12; k++) if (callsign[k] != 0) return CD_VALUE_OUT_OF_RANGE;
    if (!valid_utf8(callsign, n)) return CD_VALUE_OUT_OF_RANGE;
    p->callsign = callsign;
    p->callsign_length = n;
    p->battery = in[21];
    p->activity = in[22];
    p->alerts = in[23];
    p->heart_rate = in[24];
    if (p->battery > 100 || p->activity > 3) return CD_VALUE_OUT_OF_RANGE;
    if (p->heart_rate != 0 && (p->heart_rate < 20 || p->heart_rate > 250)) return CD_VALUE_OUT_OF_RANGE;
    size_t o = 25;
    if (in[o] > 1) return CD_VALUE_OUT_OF_RANGE;
    p->has_event = in[o++];
    if (p->has_event) {
        if (length - o < 9) return CD_TRUNCATED;
        p->event_type = in[o];
        if (p->event_type > 6) return CD_UNKNOWN_TYPE;
        p->event_timestamp = le(in + o + 1, 8);
        if (!timestamp_ok(p->event_timestamp)) return CD_BAD_DATE;
        o += 9;
    }
    if (length - o < 8) return CD_TRUNCATED;
    p->timestamp = le(in + o, 8);
    if (!timestamp_ok(p->timestamp)) return CD_BAD_DATE;
    o += 8;
    if (o < length) {
        p->location_byte = 1;
        if (in[o] > 1) return CD_VALUE_OUT_OF_RANGE;
        p->has_location = in[o++];
        if (p->has_location) {
            if (length - o < 9) return CD_TRUNCATED;
            p->latitude = le_float(in + o);
            p->longitude = le_float(in + o + 4);
            const uint8_t flags = in[o + 8];
            o += 9;
            if (!in_range(p->latitude, -90, 90) || !in_range(p->longitude, -180, 180)) return CD_VALUE_OUT_OF_RANGE;
            if (flags & ~0x03) return CD_VALUE_OUT_OF_RANGE;
            if (flags & 0x01) {
                if (length - o < 4) return CD_TRUNCATED;
                p->has_altitude = 1;
                p->altitude = le_float(in + o);
                o += 4;
                if (!in_range(p->altitude, -1000, 100000)) return CD_VALUE_OUT_OF_RANGE;
            }
            if (flags & 0x02) {
                if (length - o < 4) return CD_TRUNCATED;
                p->has_accuracy = 1;
                p->accuracy = le_float(in + o);
                o += 4;
                if (!isfinite(p->accuracy) || p->accuracy < 0) return CD_VALUE_OUT_OF_RANGE;
            }
        }
    }
    return o == length ? CD_OK : CD_TRAILING_BYTES;
}

int cd_peat_emergency_decode(const uint8_t *in, size_t length, cd_peat_emergency *e) {
    if (length < 16) return CD_TRUNCATED;
    e->source = (uint32_t)le(in, 4);
    if (e->source == 0) return CD_VALUE_OUT_OF_RANGE;
    e->timestamp = le(in + 4, 8);
    if (e->timestamp < MIN_TIMESTAMP) return CD_BAD_DATE;
    e->ack_count = (uint32_t)le(in + 12, 4);
    if (e->ack_count > MAX_ACKS) return CD_VALUE_OUT_OF_RANGE;
    if (length - 16 < (size_t)e->ack_count * 5) return CD_TRUNCATED;
    e->acks = in + 16;
    uint32_t last = 0;
    for (uint32_t i = 0; i < e->ack_count; i++) {
        const uint8_t *a = e->acks + 5 * i;
        const uint32_t node = (uint32_t)le(a, 4);
        if (node == 0) return CD_VALUE_OUT_OF_RANGE;
        if (node <= last) return CD_OUT_OF_ORDER;
        if (a[4] > 1) return CD_VALUE_OUT_OF_RANGE;
        last = node;
    }
    return 16 + (size_t)e->ack_count * 5 == length ? CD_OK : CD_TRAILING_BYTES;
}

int cd_peat_document_decode(const uint8_t *in, size_t length, cd_peat_document *d) {
    memset(d, 0, sizeof *d);
    if (length > MAX_VALUE) return CD_TOO_LARGE;
    if (length < 12) return CD_TRUNCATED;
    d->version = (uint32_t)le(in, 4);
    // PEAT-W1: a version whose low byte is a frame marker would be read as a frame.
    if ((d->version & 0xFF) >= 0xAE && (d->version & 0xFF) <= 0xB2) return CD_MISPLACED_MARKER;
    d->node_id = (uint32_t)le(in + 4, 4);
    d->counter_count = (uint32_t)le(in + 8, 4);
    if (d->counter_count > MAX_ENTRIES) return CD_VALUE_OUT_OF_RANGE;
    if (length - 12 < (size_t)d->counter_count * 12) return CD_TRUNCATED;
    d->counters = in + 12;
    uint32_t last = 0;
    for (uint32_t i = 0; i < d->counter_count; i++) {
        const uint32_t node = (uint32_t)le(d->counters + 12 * i, 4);
        if (node == 0) return CD_VALUE_OUT_OF_RANGE;
        if (node <= last) return CD_OUT_OF_ORDER;
        last = node;
    }
    size_t o = 12 + (size_t)d->counter_count * 12;
    uint8_t last_marker = 0;
    while (o < length && in[o] >= 0xAB && in[o] <= 0xAD) {
        const uint8_t marker = in[o];
        if (marker <= last_marker) return CD_MISPLACED_MARKER;
        last_marker = marker;
        if (length - o < 4) return CD_TRUNCATED;
        if (in[o + 1] != 0) return CD_VALUE_OUT_OF_RANGE;
        const size_t n = (size_t)le(in + o + 2, 2);
        o += 4;
        if (length - o < n) return CD_TRUNCATED;
        int rc = CD_OK;
        if (marker == 0xAB) {
            d->has_peripheral = 1;
            rc = cd_peat_peripheral_decode(in + o, n, &d->peripheral);
        } else if (marker == 0xAC) {
            d->has_emergency = 1;
            rc = cd_peat_emergency_decode(in + o, n, &d->emergency);
        } else {
            d->chat = in + o;
            d->chat_length = n;
        }
        if (rc != CD_OK) return rc;
        o += n;
    }
    d->trailer = in + o;
    d->trailer_length = length - o;
    return CD_OK;
}
