// Plain C decoders of four binary formats, written from the dialect pages alone
// (docs/dialects/bitchat.md BITCHAT-W1...W8, peat.md PEAT-W1...W4, relay.md RELAY-W3), as a
// speed baseline for meshconform's Swift decoders (Benchmarks/Sources/DecodeVersusC).
//
// Each decoder reads without copying: the result points into the input, except a compressed
// bitchat payload, which is inflated into memory the decoder allocates (cd_bitchat_packet_free).
// Return value: CD_OK or the page's error code for the input.
#ifndef CDECODERS_H
#define CDECODERS_H

#include <stddef.h>
#include <stdint.h>

enum cd_code {
    CD_OK = 0,
    CD_TRUNCATED,
    CD_LENGTH_MISMATCH,
    CD_TRAILING_BYTES,
    CD_UNKNOWN_TYPE,
    CD_VALUE_OUT_OF_RANGE,
    CD_TOO_LARGE,
    CD_BAD_COMPRESSION,
    CD_RATIO_TOO_HIGH,
    CD_CHUNK_INDEX_OUT_OF_RANGE,
    CD_OUT_OF_ORDER,
    CD_MISPLACED_MARKER,
    CD_BAD_DATE,
};

/// The error code's name as docs/vectors.md spells it ("" for CD_OK).
const char *cd_code_name(int code);

// bitchat.packet (BITCHAT-W1...W7)
typedef struct {
    uint8_t version, type, ttl, flags;
    uint64_t timestamp;
    const uint8_t *sender;      // 8 bytes
    const uint8_t *recipient;   // 8 bytes, or NULL
    const uint8_t *route;       // route_count * 8 bytes, or NULL
    unsigned route_count;
    const uint8_t *payload;     // the (inflated) payload
    size_t payload_length;
    int compressed;             // 0, or 1 raw DEFLATE, 2 zlib
    const uint8_t *compressed_data;
    size_t compressed_length;
    uint32_t original_size;
    const uint8_t *signature;   // 64 bytes, or NULL
    unsigned padding;
    uint8_t *inflated;          // owned: the inflated payload when compressed
} cd_bitchat_packet;

int cd_bitchat_packet_decode(const uint8_t *in, size_t length, cd_bitchat_packet *out);
void cd_bitchat_packet_free(cd_bitchat_packet *p);

// bitchat.fragment (BITCHAT-W8)
typedef struct {
    const uint8_t *fragment_id;  // 8 bytes
    unsigned index, total;
    uint8_t original_type;
    const uint8_t *data;
    size_t data_length;
} cd_bitchat_fragment;

int cd_bitchat_fragment_decode(const uint8_t *in, size_t length, cd_bitchat_fragment *out);

// peat.peripheral (PEAT-W3), peat.emergency (PEAT-W4), peat.document (PEAT-W2)
typedef struct {
    uint32_t id, parent;
    uint8_t type;
    const uint8_t *callsign;     // callsign_length UTF-8 bytes
    size_t callsign_length;
    uint8_t battery, activity, alerts, heart_rate;
    int has_event;
    uint8_t event_type;
    uint64_t event_timestamp, timestamp;
    int location_byte;           // 0: the 34-byte legacy form without has_location
    int has_location, has_altitude, has_accuracy;
    float latitude, longitude, altitude, accuracy;
} cd_peat_peripheral;

typedef struct {
    uint32_t source;
    uint64_t timestamp;
    uint32_t ack_count;
    const uint8_t *acks;         // ack_count * 5 bytes: node u32 LE, acked u8
} cd_peat_emergency;

typedef struct {
    uint32_t version, node_id, counter_count;
    const uint8_t *counters;     // counter_count * 12 bytes: node u32 LE, count u64 LE
    int has_peripheral, has_emergency;
    cd_peat_peripheral peripheral;
    cd_peat_emergency emergency;
    const uint8_t *chat;         // or NULL
    size_t chat_length;
    const uint8_t *trailer;
    size_t trailer_length;
} cd_peat_document;

int cd_peat_peripheral_decode(const uint8_t *in, size_t length, cd_peat_peripheral *out);
int cd_peat_emergency_decode(const uint8_t *in, size_t length, cd_peat_emergency *out);
int cd_peat_document_decode(const uint8_t *in, size_t length, cd_peat_document *out);

// relay.ack (RELAY-W3)
int cd_relay_ack_decode(const uint8_t *in, size_t length, uint64_t *seq);

// Timing, in C like the decoders: decodes per second of format `format` over the inputs,
// best of `rounds` rounds of `seconds` each, one decode call per input (and the packet's free).
enum cd_format { CD_BITCHAT_PACKET, CD_BITCHAT_FRAGMENT, CD_PEAT_DOCUMENT, CD_RELAY_ACK };
/* Passes over the inputs between two clock reads, on both sides: reading the thread's CPU time
   is a system call, which would otherwise weigh on a pass of a few short inputs. */
#define CD_PASSES_PER_CLOCK_READ 64

/* The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID), the clock of both sides' rounds. */
double cd_thread_seconds(void);
double cd_rate(int format, const uint8_t *const *inputs, const size_t *lengths, size_t count, double seconds, int rounds);

#endif
