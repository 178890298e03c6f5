// HeapProfiles' door to C: zlib's deflate with a gzip wrapper, for pprof files (`go tool pprof`
// and the profilers that scrape /debug/pprof/heap expect gzip). Only
// Sources/HeapProfiles/Gzip.swift imports this module. Nothing here is stable API.
//
// Headers and the pkg-config file come from Debian's `zlib1g-dev` (pkg-config name `zlib`).

#ifndef RETAINGRAPH_CZLIB_SHIM_H
#define RETAINGRAPH_CZLIB_SHIM_H

#include <stddef.h>
#include <zlib.h>

/// Compresses `size` bytes into `output` (capacity `capacity`) as one gzip member at the default
/// level. Returns the compressed size, or 0 when `capacity` is too small or zlib fails.
/// deflateInit2 is a macro (it passes the library's version and struct size), hence this
/// wrapper; `capacity` of compressBound(size) + 32 always suffices.
static inline size_t czlib_gzip(const unsigned char *input, size_t size, unsigned char *output,
                                size_t capacity) {
    z_stream stream = {0};
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)size;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    size_t written = stream.total_out;
    deflateEnd(&stream);
    return status == Z_STREAM_END ? written : 0;
}

/// An upper bound of the compressed size of `size` bytes, gzip header and trailer included.
static inline size_t czlib_gzip_bound(size_t size) { return compressBound((uLong)size) + 32; }

#endif
