// The statics a C++ compiler makes unique across loaded objects (STB_GNU_UNIQUE): the static local of an inline
// function, a static member of a class template, a thread_local static of a function template (miniVite's random
// generator). Each rank adds its rank + 1 to each, with a sleep between additions so that ranks interleave, and
// prints them: each rank must see its own sums, as a process does.
#include <bxisim/rank.h>

#include <chrono>
#include <iostream>
#include <thread>

inline int& inline_static()
{
  static int value = 0;
  return value;
}

template <typename T>
struct Registry {
  static T entries;
};
template <typename T>
T Registry<T>::entries = 0;

template <typename T>
T& thread_local_static()
{
  thread_local static T value{};
  return value;
}

int main()
{
  for (int i = 0; i <= bxisim_rank(); ++i) {
    ++inline_static();
    ++Registry<int>::entries;
    ++thread_local_static<long>();
    std::this_thread::sleep_for(std::chrono::microseconds(10));
  }
  std::cout << "inline_static=" << inline_static() << " template_member=" << Registry<int>::entries
            << " thread_local_static=" << thread_local_static<long>() << std::endl;
  return 0;
}
