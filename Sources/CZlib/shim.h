// zlib for bitchat's compressed payloads (zlib1g-dev: its header and libz). inflateInit2 and
// deflateInit2 are macros, which Swift does not import: they are wrapped here.
#ifndef MESHCONFORM_CZLIB_SHIM_H
#define MESHCONFORM_CZLIB_SHIM_H
#include <zlib.h>

/// windowBits -15: raw DEFLATE; 15: zlib-wrapped.
static inline int mc_inflate_init(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

/// zlib's defaults (level 6, memLevel 8, the default strategy), as the apps and Python's zlib use.
static inline int mc_deflate_init(z_stream *stream, int windowBits) {
    return deflateInit2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
