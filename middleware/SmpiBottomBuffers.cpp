// A one-sided call's origin or result buffer at MPI_BOTTOM (the type's displacements are addresses) on the rank's own
// window, at smpi. SMPI 3.32 takes its MPI_BOTTOM, (void*)-111, for address 0 in the requests it makes for another
// rank's window, but copies the data of an operation on the rank's own window itself, at -111: MPI_Get from oneself
// wrote each element 111 bytes below its place (ARMCI-MPI's vector gets, which pass absolute addresses) and damaged the
// heap; a null buffer it refuses with MPI_ERR_BUFFER. For those copies SMPI is given instead a buffer at a real address
// and one element of a type that starts that far below it, at 0, made for the call (the copy is done when it returns).

#include "SmpiRank.hpp"

namespace bxisim::mw
{

namespace
{
char bottom_anchor; // the buffer SMPI is given: any address SMPI does not take for its MPI_BOTTOM
}

SmpiAbi::BottomBuffer SmpiRank::bottom_buffer(const void* buffer, int count, MPI_Datatype type, int target_rank,
                                              MPI_Win win)
{
  BottomBuffer given{to_be_bottom(const_cast<void*>(buffer)), count, to_be_datatype(type), false};
  if (buffer != MPI_BOTTOM || count <= 0 || type == MPI_DATATYPE_NULL || win == MPI_WIN_NULL)
    return given;
  be_group group = nullptr;
  int own_rank   = MPI_UNDEFINED;
  if (not be_ok(fn_.Win_get_group(to_be_win(win), &group)))
    return given;
  fn_.Group_rank(group, &own_rank);
  fn_.Group_free(&group);
  if (own_rank != target_rank)
    return given; // SMPI's requests take its MPI_BOTTOM for address 0
  int length              = count;
  const MPI_Aint anchored = -static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(&bottom_anchor));
  be_datatype from_zero   = nullptr;
  if (not be_ok(fn_.Type_create_hindexed(1, &length, &anchored, given.type, &from_zero)))
    return given;
  if (not be_ok(fn_.Type_commit(&from_zero))) {
    fn_.Type_free(&from_zero);
    return given;
  }
  return {&bottom_anchor, 1, from_zero, true};
}

void SmpiRank::release_bottom_buffer(BottomBuffer* given)
{
  if (given->made)
    fn_.Type_free(&given->type);
}

} // namespace bxisim::mw
