/* bxisim/region.h: regions of a program, each simulated at an accuracy level of its own.
 *
 *   bxisim_region_begin("solve", BXISIM_LEVEL_CYCLE);   ...   bxisim_region_end("solve");
 *   { bxisim::region r("solve", BXISIM_LEVEL_CYCLE); ... }   (C++: ends with the scope)
 *
 * Regions nest; a region given BXISIM_LEVEL_DEFAULT takes the level of the region around it (the
 * run's level, `bxisim run --level`, outside any region). `bxisim run --region solve=smpi` re-maps
 * a region without recompiling. Every rank must cross each boundary (MPI_COMM_WORLD's ranks, in the
 * same order), as for a collective call: at a boundary that changes level, the ranks meet (in no
 * simulated time) and the MPI back end and NIC model change for all of them (docs/mpi.md). The run's summary gives the
 * simulated and wall time spent in each region (`--regions-json FILE` writes it as JSON too).
 *
 * Built with another MPI (mpicc, smpicc: their mpi.h does not define BXISIM_MPI), these names are
 * no-ops, so an annotated program stays portable: copy this header next to it.
 */
#ifndef BXISIM_REGION_H
#define BXISIM_REGION_H

#include <mpi.h>

#define BXISIM_LEVEL_DEFAULT 0
#define BXISIM_LEVEL_SMPI 1
#define BXISIM_LEVEL_MESSAGE 2
#define BXISIM_LEVEL_CYCLE 3

#ifdef BXISIM_MPI
#ifdef __cplusplus
extern "C" {
#endif
/** Enters region `name` (at most 63 characters) at `level` (a BXISIM_LEVEL_x). */
void bxisim_region_begin(const char* name, int level);
/** Leaves region `name`, the innermost open one. */
void bxisim_region_end(const char* name);
#ifdef __cplusplus
}
#endif
#else
static inline void bxisim_region_begin(const char* name, int level)
{
  (void)name;
  (void)level;
}
static inline void bxisim_region_end(const char* name)
{
  (void)name;
}
#endif

#ifdef __cplusplus
namespace bxisim
{
/** A region for the lifetime of the object. */
class region
{
 public:
  explicit region(const char* name, int level = BXISIM_LEVEL_DEFAULT) : name_(name)
  {
    bxisim_region_begin(name, level);
  }
  ~region() { bxisim_region_end(name_); }
  region(const region&)            = delete;
  region& operator=(const region&) = delete;

 private:
  const char* name_;
};
} // namespace bxisim
#endif

#endif
