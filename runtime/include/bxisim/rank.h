/* bxisim/rank.h: what a program launched by `bxisim run` may ask the runtime.
 *
 * Every function here is provided by the `bxisim` executable and found when `bxisim run` loads the
 * program: programs built with bxicc/bxicxx need no extra library. Called outside `bxisim run`
 * (in a program built with BXISIM_PRETEND_CC=1, say), they are undefined symbols.
 *
 * Ranks are numbered 0..size-1. Nodes are the simulated machine's nodes; a node's ranks have local
 * ranks 0..local_size-1 in the order of their ranks.
 */
#ifndef BXISIM_RANK_H
#define BXISIM_RANK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** This rank's number, 0..bxisim_size()-1. */
int bxisim_rank(void);
/** Number of ranks of the run (`bxisim run -n`). */
int bxisim_size(void);
/** Index of the simulated node this rank runs on (0 for the platform's first node). */
int bxisim_node_id(void);
/** Number of ranks on this rank's node before it, 0..bxisim_local_size()-1. */
int bxisim_local_rank(void);
/** Number of ranks on this rank's node. */
int bxisim_local_size(void);

/** Return codes of the key/value store. */
enum {
  BXISIM_SUCCESS   = 0,
  BXISIM_ERR_EXIST = 1, /* bxisim_kv_put: the key was already put (values are written once) */
  BXISIM_ERR_TRUNC = 2, /* bxisim_kv_get: the value is larger than the buffer; *size tells its size */
  BXISIM_ERR_ARG   = 3  /* a null key, or a null pointer where data is expected */
};

/**
 * Publishes `size` bytes under `key`, for every rank. Keys are written once: a second put of the
 * same key fails with BXISIM_ERR_EXIST and leaves the first value. Takes no simulated time.
 */
int bxisim_kv_put(const char* key, const void* value, size_t size);

/**
 * Copies the value of `key` into `buffer` (at most `capacity` bytes) and its size into `*size`
 * (may be NULL). Blocks, in simulated time, until some rank has put the key; a key that is never
 * put is reported as a deadlock when no rank can progress anymore.
 */
int bxisim_kv_get(const char* key, void* buffer, size_t capacity, size_t* size);

/** Returns when every rank of the run has called it (once per round). Takes no simulated time. */
void bxisim_barrier(void);

/** Simulates `seconds` of computation on this rank's core (as if the core were busy that long). */
void bxisim_compute(double seconds);
/** Simulates `flops` floating-point operations on this rank's core, at the core's speed. */
void bxisim_compute_flops(double flops);
/** Current simulated time, in seconds since the start of the simulation. */
double bxisim_time(void);

#ifdef __cplusplus
}
#endif

#endif /* BXISIM_RANK_H */
