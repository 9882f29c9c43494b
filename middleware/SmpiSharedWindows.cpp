// Shared-memory windows of several ranks at smpi (ranks of one node: --ppn 2 and up). SMPI 3.32 sized the node's block
// as the first rank's segment times the ranks and answered MPI_Win_shared_query with the block's start for every rank:
// a rank's stores to a neighbour's segment landed in the first rank's, and a segment larger than the first rank's ran
// past the block (the heap damaged; smpirun does the same). Ranks here share one address space, so bxisim lays the
// segments out itself, contiguous in the communicator's rank order as MPI-3.1 11.2.3 says by default, and gives SMPI
// an MPI_Win_create window over each rank's segment: its one-sided operations stay SMPI's. The sizes are gathered and
// the block's address broadcast with SMPI's collectives, which take their simulated time as a real MPI's exchange of
// segment sizes would.

#include "SmpiRank.hpp"

#include <cstdlib>
#include <cstring>

namespace bxisim::mw
{

int SmpiRank::Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                  MPI_Win* win)
{
  if (is_intercomm(comm))
    return intercomm_unsupported("MPI_Win_allocate_shared");
  be_comm be = to_be_comm(comm);
  int ranks = 0, rank = 0;
  if (not be_ok(fn_.Comm_size(be, &ranks)) || not be_ok(fn_.Comm_rank(be, &rank)) || ranks <= 1 || size < 0) {
    void* window = nullptr; // one rank (or an error SMPI reports): SMPI's own window is right
    int result   = fn_.Win_allocate_shared(size, disp_unit, to_be_info(info), be, baseptr, &window);
    return made_window(result, window, MPI_WIN_FLAVOR_SHARED, win);
  }
  MPI_Aint mine[2] = {size, disp_unit};
  std::vector<MPI_Aint> all(2 * static_cast<size_t>(ranks));
  be_datatype bytes = to_be_datatype(MPI_BYTE);
  if (int result = fn_.Allgather(mine, sizeof mine, bytes, all.data(), sizeof mine, bytes, be); not be_ok(result))
    return from_be_errcode(result);
  MPI_Aint total = 0;
  for (int r = 0; r < ranks; ++r)
    total += all[2 * static_cast<size_t>(r)];
  void* block = rank == 0 ? std::calloc(static_cast<size_t>(total) + 1, 1) : nullptr; // + 1: never a null block
  if (rank == 0 && block == nullptr)
    return raised(comm, MPI_ERR_NO_MEM);
  if (int result = fn_.Bcast(&block, sizeof block, bytes, 0, be); not be_ok(result))
    return from_be_errcode(result);
  SharedWindow shared;
  shared.owned_block = rank == 0 ? block : nullptr;
  MPI_Aint offset    = 0;
  for (int r = 0; r < ranks; ++r) {
    MPI_Aint segment_size = all[2 * static_cast<size_t>(r)];
    // An empty segment has no address, as OpenMPI's osc/sm and MPICH answer (MPICH's win_shared_noncontig_put)
    void* start = segment_size > 0 ? static_cast<unsigned char*>(block) + offset : nullptr;
    shared.segments.push_back({start, segment_size, all[2 * static_cast<size_t>(r) + 1]});
    offset += segment_size;
  }
  void* base   = shared.segments[static_cast<size_t>(rank)].base;
  void* window = nullptr;
  int result   = fn_.Win_create(base, size, disp_unit, to_be_info(info), be, &window);
  if (not be_ok(result)) {
    std::free(shared.owned_block);
    return from_be_errcode(result);
  }
  std::memcpy(baseptr, &base, sizeof base);
  shared_windows_[window] = std::move(shared);
  return made_window(result, window, MPI_WIN_FLAVOR_SHARED, win);
}

int SmpiRank::Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr)
{
  auto found = shared_windows_.find(to_be_win(win));
  if (found == shared_windows_.end())
    return from_be_errcode(fn_.Win_shared_query(to_be_win(win), to_be_rank(rank), size, disp_unit, baseptr));
  const auto& segments        = found->second.segments;
  const SharedSegment* answer = nullptr;
  if (rank == MPI_PROC_NULL) { // the lowest rank whose segment is not empty (none: size 0)
    for (const auto& segment : segments)
      if (segment.size > 0) {
        answer = &segment;
        break;
      }
  } else if (rank >= 0 && static_cast<size_t>(rank) < segments.size()) {
    answer = &segments[static_cast<size_t>(rank)];
  } else {
    Win_call_errhandler(win, MPI_ERR_RANK);
    return MPI_ERR_RANK;
  }
  SharedSegment none{nullptr, 0, segments.empty() ? 1 : segments.front().disp_unit};
  if (answer == nullptr)
    answer = &none;
  *size      = answer->size;
  *disp_unit = static_cast<int>(answer->disp_unit);
  std::memcpy(baseptr, &answer->base, sizeof answer->base);
  return MPI_SUCCESS;
}

int SmpiRank::Win_free(MPI_Win* win)
{
  be_win window = to_be_win(*win);
  auto found    = shared_windows_.find(window);
  be_win freed  = window;
  int result    = fn_.Win_free(&window);
  *win          = from_be_win(window);
  if (be_ok(result))
    forget_window(freed);
  // SMPI's MPI_Win_free waits for every rank of the window (its barrier): none touches the block after it.
  if (be_ok(result) && found != shared_windows_.end()) {
    std::free(found->second.owned_block);
    shared_windows_.erase(found);
  }
  return from_be_errcode(result);
}

} // namespace bxisim::mw
