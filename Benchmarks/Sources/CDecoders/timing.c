// The C side of the side-by-side measurement: the same loop as the Swift side's (every input
// once per pass, the clock (thread CPU time) read every CD_PASSES_PER_CLOCK_READ passes, best of
// `rounds` rounds), calling the decoders, which live in other files and so are called, not inlined.
#include <time.h>

#include "cdecoders.h"

static const char *const names[] = {
    "", "truncated", "lengthMismatch", "trailingBytes", "unknownType", "valueOutOfRange", "tooLarge",
    "badCompression", "ratioTooHigh", "chunkIndexOutOfRange", "outOfOrder", "misplacedMarker", "badDate",
};

const char *cd_code_name(int code) {
    return code >= 0 && code < (int)(sizeof names / sizeof names[0]) ? names[code] : "?";
}

// The calling thread's CPU time, not wall time: on a machine shared with other builds a
// round's wall time includes the time the thread waited for a core, which moves from round to
// round; both sides read this same clock (the Swift side through cd_thread_seconds).
double cd_thread_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int decode_once(int format, const uint8_t *in, size_t length) {
    switch (format) {
    case CD_BITCHAT_PACKET: {
        cd_bitchat_packet p;
        int rc = cd_bitchat_packet_decode(in, length, &p);
        cd_bitchat_packet_free(&p);
        return rc;
    }
    case CD_BITCHAT_FRAGMENT: {
        cd_bitchat_fragment f;
        return cd_bitchat_fragment_decode(in, length, &f);
    }
    case CD_PEAT_DOCUMENT: {
        cd_peat_document d;
        return cd_peat_document_decode(in, length, &d);
    }
    case CD_RELAY_ACK: {
        uint64_t seq;
        return cd_relay_ack_decode(in, length, &seq);
    }
    }
    return -1;
}

double cd_rate(int format, const uint8_t *const *inputs, const size_t *lengths, size_t count, double seconds, int rounds) {
    double best = 0;
    for (int round = 0; round < rounds; round++) {
        const double start = cd_thread_seconds();
        double elapsed = 0;
        size_t decodes = 0, accepted = 0;
        while (elapsed < seconds) {
            for (int pass = 0; pass < CD_PASSES_PER_CLOCK_READ; pass++)
                for (size_t i = 0; i < count; i++) accepted += decode_once(format, inputs[i], lengths[i]) == CD_OK;
            decodes += count * CD_PASSES_PER_CLOCK_READ;
            elapsed = cd_thread_seconds() - start;
        }
        if (accepted == 0) return 0;
        const double rate = (double)decodes / elapsed;
        if (rate > best) best = rate;
    }
    return best;
}
