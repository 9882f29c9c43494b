/* bxisim/sampling.h: SMPI's sampling and shared-memory macros, under their SMPI names, so that
 * skeletons written for SMPI build unchanged with bxicc (bxisim's mpi.h includes this header).
 *
 *   SMPI_SAMPLE_LOCAL(init, condition, step, iters, threshold) { body }
 *   SMPI_SAMPLE_GLOBAL(init, condition, step, iters, threshold) { body }
 *       The loop `for (init; condition; step) { body }`, whose body really runs only while bxisim
 *       still measures it: for the first `iters` iterations, and then as long as the relative
 *       standard error of the measured times stays above `threshold` (0 = no such condition).
 *       The other iterations only evaluate `condition` and `step`; their time is simulated as the
 *       mean measured time. LOCAL keeps the measures per rank, GLOBAL shares them between ranks
 *       (the first ranks measure, the others skip). Measures persist: a loop met again (in a time
 *       step loop, say) reuses them. With computation simulation off (`bxisim run
 *       --no-cpu-simulation`) iterations are still skipped but no time is simulated.
 *   SMPI_SAMPLE_DELAY(seconds) { body }   the body never runs; `seconds` of computation are simulated.
 *   SMPI_SAMPLE_FLOPS(flops) { body }     the body never runs; `flops` are computed on the core.
 *   SMPI_SHARED_MALLOC(size) / SMPI_SHARED_FREE(pointer)
 *       Every rank calling SMPI_SHARED_MALLOC at the same place of the program (file and line) with
 *       the same size receives the same block: memory for data whose value does not matter to the
 *       simulation. The block is freed when every rank has freed it.
 */
#ifndef BXISIM_SAMPLING_H
#define BXISIM_SAMPLING_H

#include <bxisim/rank.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bxisim_sample;

struct bxisim_sample* bxisim_sample_enter(int global, const char* file, int line, const char* tag, int iters,
                                          double threshold);
int bxisim_sample_run(struct bxisim_sample* sample);
struct bxisim_sample* bxisim_sample_leave(struct bxisim_sample* sample);

void* bxisim_shared_malloc(size_t size, const char* file, int line);
void bxisim_shared_free(void* pointer);

#ifdef __cplusplus
}
#endif

/* The outer loop runs once and ends the sample (also after a `break` in the body); the inner one is
 * the user's loop; the `if` skips the body of iterations that are not measured. */
#define BXISIM_SAMPLE_LOOP_(loop_init, loop_end, loop_iter, global, iters, thres, tag)                                 \
  for (struct bxisim_sample* bxisim_sample_ =                                                                          \
           bxisim_sample_enter((global), __FILE__, __LINE__, (tag), (iters), (thres));                                 \
       bxisim_sample_ != NULL; bxisim_sample_ = bxisim_sample_leave(bxisim_sample_))                                   \
    for (loop_init; (loop_end); (loop_iter))                                                                           \
      if (bxisim_sample_run(bxisim_sample_))

#define SMPI_SAMPLE_LOCAL(loop_init, loop_end, loop_iter, iters, thres)                                                \
  BXISIM_SAMPLE_LOOP_(loop_init, loop_end, loop_iter, 0, iters, thres, "")
#define SMPI_SAMPLE_LOCAL_TAG(loop_init, loop_end, loop_iter, iters, thres, tag)                                       \
  BXISIM_SAMPLE_LOOP_(loop_init, loop_end, loop_iter, 0, iters, thres, tag)
#define SMPI_SAMPLE_GLOBAL(loop_init, loop_end, loop_iter, iters, thres)                                               \
  BXISIM_SAMPLE_LOOP_(loop_init, loop_end, loop_iter, 1, iters, thres, "")
#define SMPI_SAMPLE_GLOBAL_TAG(loop_init, loop_end, loop_iter, iters, thres, tag)                                      \
  BXISIM_SAMPLE_LOOP_(loop_init, loop_end, loop_iter, 1, iters, thres, tag)
#define SMPI_SAMPLE_DELAY(duration) for (bxisim_compute(duration); 0;)
#define SMPI_SAMPLE_FLOPS(flops) for (bxisim_compute_flops(flops); 0;)

#define SMPI_SHARED_MALLOC(size) bxisim_shared_malloc((size), __FILE__, __LINE__)
#define SMPI_SHARED_FREE(pointer) bxisim_shared_free(pointer)

#endif /* BXISIM_SAMPLING_H */
