#include "DimsCreate.hpp"

#include <mpi.h>

#include <algorithm>
#include <vector>

namespace bxisim::mw
{

namespace
{
/** Searches the non-increasing factorizations of a number for the most balanced one (DimsCreate.hpp). */
class BalancedSearch
{
 public:
  explicit BalancedSearch(long long n)
  {
    for (long long d = 1; d * d <= n; ++d) {
      if (n % d == 0) {
        divisors_.push_back(d);
        if (d * d != n)
          divisors_.push_back(n / d);
      }
    }
    std::sort(divisors_.rbegin(), divisors_.rend());
  }

  /** The factors of `n` (`count` of them, none above `largest`) appended to the current choice. */
  void search(long long n, int count, long long largest)
  {
    if (count == 1) {
      if (n <= largest) {
        current_.push_back(static_cast<int>(n));
        consider();
        current_.pop_back();
      }
      return;
    }
    for (long long factor : divisors_) {
      if (factor > std::min(n, largest) || n % factor != 0)
        continue;
      long long rest = n / factor, power = 1;
      for (int i = 0; i < count - 1 && power < rest; ++i)
        power *= factor;
      if (power < rest) // rest > factor^(count-1): smaller factors cannot be followed by non-increasing ones
        break;
      current_.push_back(static_cast<int>(factor));
      search(rest, count - 1, factor);
      current_.pop_back();
    }
  }

  const std::vector<int>& best() const { return best_; }

 private:
  void consider()
  {
    int spread  = current_.front() - current_.back();
    bool better = best_.empty() || spread < best_spread_ ||
                  (spread == best_spread_ &&
                   std::lexicographical_compare(best_.rbegin(), best_.rend(), current_.rbegin(), current_.rend()));
    if (better) {
      best_        = current_;
      best_spread_ = spread;
    }
  }

  std::vector<long long> divisors_; // of the number searched, largest first
  std::vector<int> current_, best_;
  int best_spread_ = 0;
};
} // namespace

int balanced_dims(int nnodes, int ndims, int* dims)
{
  if (ndims < 0 || nnodes <= 0)
    return MPI_ERR_DIMS;
  if (ndims > 0 && dims == nullptr)
    return MPI_ERR_ARG;
  long long fixed = 1;
  int free        = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0)
      return MPI_ERR_DIMS;
    if (dims[i] == 0)
      ++free;
    else
      fixed *= dims[i];
  }
  if (nnodes % fixed != 0)
    return MPI_ERR_DIMS;
  long long rest = nnodes / fixed;
  if (free == 0)
    return rest == 1 ? MPI_SUCCESS : MPI_ERR_DIMS;
  BalancedSearch search(rest);
  search.search(rest, free, rest);
  auto chosen = search.best().begin();
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0)
      dims[i] = *chosen++;
  return MPI_SUCCESS;
}

} // namespace bxisim::mw
