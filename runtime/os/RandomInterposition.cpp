// rand/srand/random/srandom and the drand48 family with a generator per rank: each rank starts with
// the sequence a new process gets (as after srandom(1)) and seeding one rank leaves the others'
// sequences alone. libc's reentrant variants (random_r, drand48_r, ...) do the work on the rank's
// state (ProcessState). Outside a rank, libc's own generators are used.

#include "ProcessState.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <cstdlib>

namespace
{
bxisim::os::ProcessState* state_of_caller()
{
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  return rank != nullptr ? &rank->process_state() : nullptr;
}
} // namespace

extern "C" {

long random() noexcept
{
  auto* state = state_of_caller();
  if (state == nullptr)
    return BXISIM_REAL(random)();
  int32_t value = 0;
  random_r(&state->random, &value);
  return value;
}

void srandom(unsigned int seed) noexcept
{
  if (auto* state = state_of_caller())
    srandom_r(seed, &state->random);
  else
    BXISIM_REAL(srandom)(seed);
}

// In glibc, rand() is random() and srand() is srandom().
int rand() noexcept
{
  if (state_of_caller() == nullptr)
    return BXISIM_REAL(rand)();
  return static_cast<int>(random());
}

void srand(unsigned int seed) noexcept
{
  if (state_of_caller() == nullptr)
    BXISIM_REAL(srand)(seed);
  else
    srandom(seed);
}

double drand48() noexcept
{
  auto* state = state_of_caller();
  if (state == nullptr)
    return BXISIM_REAL(drand48)();
  double value = 0;
  drand48_r(&state->drand48, &value);
  return value;
}

long lrand48() noexcept
{
  auto* state = state_of_caller();
  if (state == nullptr)
    return BXISIM_REAL(lrand48)();
  long value = 0;
  lrand48_r(&state->drand48, &value);
  return value;
}

long mrand48() noexcept
{
  auto* state = state_of_caller();
  if (state == nullptr)
    return BXISIM_REAL(mrand48)();
  long value = 0;
  mrand48_r(&state->drand48, &value);
  return value;
}

void srand48(long seed) noexcept
{
  if (auto* state = state_of_caller())
    srand48_r(seed, &state->drand48);
  else
    BXISIM_REAL(srand48)(seed);
}

} // extern "C"
