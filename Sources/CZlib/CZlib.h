// zlib itself (zlib1g-dev), for MeshWire's bitchat inflater: one call into zlib per stream,
// no intermediate buffers. inflateInit2 is a macro, which Swift cannot call: hence the wrapper.
#include <zlib.h>

static inline int CZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
