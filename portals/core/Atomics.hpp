/* Atomic operations of Portals 4 on every datatype: validity and computation.
 * target[i] = target[i] OP source[i] for the arithmetic/logical/bitwise operations; the swap family
 * (SWAP, CSWAP*, MSWAP) compares the target with the operand and stores the source. */
#ifndef BXISIM_PORTALS_ATOMICS_HPP
#define BXISIM_PORTALS_ATOMICS_HPP

#include <portals4.h>

#include <cstddef>

namespace bxisim::portals
{

/* Size in bytes of one element of `type`, 0 for an unknown datatype. */
size_t datatype_size(ptl_datatype_t type);

bool is_swap_operation(ptl_op_t op);
/* Operations limited to a single element (CSWAP*, MSWAP). */
bool is_single_element_operation(ptl_op_t op);
/* Whether `op` is defined on `type` (no ordering on complex numbers, no bit operations on floats). */
bool is_valid_combination(ptl_op_t op, ptl_datatype_t type);

/* Applies `op` in place on `count` elements of `target`, with `source` (count elements) and, for the
 * conditional and masked swaps, `operand` (one element). Buffers need no alignment. */
void apply_atomic(ptl_op_t op, ptl_datatype_t type, void* target, const void* source, const void* operand,
                  size_t count);

const char* op_name(ptl_op_t op);
const char* datatype_name(ptl_datatype_t type);

} // namespace bxisim::portals

#endif
