// The C++ twin of private_globals.c: a global object with a constructor (run once per rank's copy),
// std::chrono for time, std::this_thread::sleep_for to sleep.
#include <bxisim/rank.h>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace
{
struct Journal {
  Journal() { entries.push_back("constructed"); }
  std::vector<std::string> entries;
};
Journal journal;
} // namespace

int main()
{
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) {
    journal.entries.push_back(std::to_string(bxisim_rank()));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  int total                             = 0;
  for (size_t i = 1; i < journal.entries.size(); ++i)
    total += std::stoi(journal.entries[i]);
  std::cout << "rank=" << bxisim_rank() << " total=" << total << " calls=" << journal.entries.size() - 1
            << " elapsed=" << std::fixed << elapsed.count() << std::endl;
  return 0;
}
