/* The compile cache on disk, shared by the simulator (host shared objects) and the GPU runtime
 * (PTX and CUBIN images). Internal API.
 *
 * Layout: <root>/<kind>/<hash>.key next to the entry's data (<hash>.so, <hash>.bin, ...). The
 * root is the caller's, else $PYK2CUDA_CACHE_DIR, else $XDG_CACHE_HOME/pyk2cuda, else
 * $HOME/.cache/pyk2cuda. The key is everything the entry depends on, written out in full; the
 * hash of the key only names the files. A lookup compares the stored key with the wanted one
 * byte for byte, so a hash collision costs a rebuild, never a wrong entry.
 *
 * Writes are atomic: each file is written under a temporary name in the same folder and renamed
 * into place, data first and key last, so a reader that finds a key finds complete data.
 * Data written by cache_store_blob carries a header with its length and a hash of its bytes:
 * a truncated or altered blob is reported as corrupt and the caller rebuilds it.
 *
 * Nothing here is fatal: a cache that cannot be written only means the next run builds again.
 * No state is kept between calls; two processes may use one cache at the same time. */
#ifndef P2C_RUNTIME_CACHE_H
#define P2C_RUNTIME_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pyk2cuda.h"

enum { CACHE_PATH_BYTES = 4096 };

/* The cache root: `override` when non-empty, else the environment as above. False when none can
 * be named or the path does not fit CACHE_PATH_BYTES. */
bool cache_root(const char *override, char out[CACHE_PATH_BYTES]);

/* The folder of one kind of entry, "<root>/<kind>", made (mode 0700) when missing. False when it
 * cannot be named or made: the caller then builds without caching. */
bool cache_kind_dir(const char *override, const char *kind, char out[CACHE_PATH_BYTES]);

/* mkdir -p; new folders are private to the user (the cache holds code that gets loaded). */
bool cache_make_dirs(const char *path);

/* 64-bit FNV-1a, and the 16 hex digits that name an entry. Not cryptographic: see above. */
uint64_t cache_hash(const void *data, size_t len);
void cache_hash_name(const void *key, size_t len, char out[17]);

typedef enum CacheLookup { CACHE_HIT, CACHE_MISS, CACHE_COLLISION } CacheLookup;

/* Compares <dir>/<hash>.key with `key`: HIT when equal, COLLISION when another key is stored
 * under this hash, MISS when there is none (or it cannot be read, or memory runs out). */
CacheLookup cache_key_lookup(const char *dir, const char *hash, const void *key, size_t key_len,
                             const P2cAllocator *alloc);

/* Writes <dir>/<name> atomically (a temporary file in `dir`, then rename). */
bool cache_write_file(const char *dir, const char *name, const void *data, size_t len);

/* Stores <dir>/<hash>.<ext> (with its integrity header), then <dir>/<hash>.key. */
bool cache_store_blob(const char *dir, const char *hash, const char *ext, const void *data,
                      size_t len, const void *key, size_t key_len);

/* Reads <dir>/<hash>.<ext> written by cache_store_blob into a new buffer from `alloc` (a NUL
 * byte follows the data; free `*alloc_size` bytes). P2C_OK; P2C_ERR_IO when it cannot be read;
 * P2C_ERR_FORMAT when it is truncated or its bytes do not match its hash; P2C_ERR_NOMEM. */
P2cStatus cache_load_blob(const char *dir, const char *hash, const char *ext,
                          const P2cAllocator *alloc, void **data, size_t *len, size_t *alloc_size);

/* Removes an entry: its key first, so that no reader takes the data while it goes. */
void cache_remove(const char *dir, const char *hash, const char *ext);

/* Reads a whole file (at most `limit` bytes; the rest is dropped) into a NUL-terminated buffer
 * from `alloc`, of *alloc_size bytes. P2C_ERR_IO when it cannot be opened or read, or is not a
 * regular file (a FIFO, a device: never opened so that it could block); P2C_ERR_NOMEM. */
P2cStatus cache_read_file(const P2cAllocator *alloc, const char *path, size_t limit, char **data,
                          size_t *len, size_t *alloc_size);

/* snprintf into a CACHE_PATH_BYTES buffer; false when the result does not fit. */
bool cache_path(char out[CACHE_PATH_BYTES], const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
