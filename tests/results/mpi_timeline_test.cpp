// --trace of an MPI program: each rank's MPI calls are on its lane with the bytes they move (count x
// the datatype's size) and their peer, at the OpenMPI levels (across nodes and inside a node) and at
// smpi; inside them, the Portals calls OpenMPI makes.

#include "tests/support/CommandRunner.hpp"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using bxisim::test::run_bxisim;
using bxisim::test::run_command;
using bxisim::test::temporary_path;

namespace
{
constexpr int kCount = 1000; // ints: 4000 bytes

const char* kProgram = R"(#include <mpi.h>
int main(int argc, char** argv)
{
  int rank, data[1000] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    MPI_Send(data, 1000, MPI_INT, 1, 7, MPI_COMM_WORLD);
  else
    MPI_Recv(data, 1000, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Bcast(data, 10, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)";

const std::string& program()
{
  static const std::string path = [] {
    std::string source = temporary_path("send.c");
    std::ofstream(source) << kProgram;
    std::string binary = temporary_path("send");
    auto build         = run_command(BXISIM_BIN_DIR "/bxicc -O1 " + source + " -o " + binary);
    EXPECT_EQ(build.exit_code, 0) << build.output;
    return binary;
  }();
  return path;
}

/** The arguments of rank `rank`'s first call `name` on the timeline ("" when absent). */
std::string arguments_of(const nlohmann::json& trace, int rank, const std::string& name)
{
  for (const auto& event : trace["traceEvents"])
    if (event["ph"] == "X" && event["cat"] == "mpi" && event["tid"] == rank && event["name"] == name)
      return event["args"].value("arguments", "(no arguments)");
  return "";
}

void check(const std::string& options, bool portals)
{
  std::string folder = temporary_path("mpi-trace");
  auto result =
      run_bxisim("run -n 2 " + options + " --no-cpu-simulation -q --no-summary --trace " + folder + " " + program());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream file(folder + "/trace.json");
  auto trace = nlohmann::json::parse(file, nullptr, false);
  ASSERT_TRUE(trace.is_object());
  EXPECT_EQ(arguments_of(trace, 0, "MPI_Send"), "bytes=" + std::to_string(kCount * sizeof(int)) + ", dest=1");
  EXPECT_EQ(arguments_of(trace, 1, "MPI_Recv"), "bytes=" + std::to_string(kCount * sizeof(int)) + ", source=0");
  // The broadcast from rank 1 takes time on rank 0, which waits for the data.
  EXPECT_EQ(arguments_of(trace, 0, "MPI_Bcast"), "bytes=" + std::to_string(10 * sizeof(double)) + ", root=1");
  bool portals_calls = false;
  for (const auto& event : trace["traceEvents"])
    portals_calls = portals_calls || (event["ph"] == "X" && event["cat"] == "portals");
  EXPECT_EQ(portals_calls, portals);
}
} // namespace

TEST(MpiTimeline, CallsWithBytesAndPeersAcrossNodes)
{
  check("--ppn 1 --level message", true);
}

TEST(MpiTimeline, CallsWithBytesAndPeersInsideANode)
{
  check("--ppn 2 --level message", true);
}

TEST(MpiTimeline, CallsWithBytesAndPeersAtSmpi)
{
  check("--ppn 1 --level smpi", false);
}

namespace
{
// Rank 0's thread waits in MPI_Recv for what rank 1 sends at 200 us, while its main thread keeps calling MPI_Iprobe.
const char* kThreadsProgram = R"(#include <mpi.h>
#include <pthread.h>
#include <unistd.h>
static int value;
static void* receiver(void* unused)
{
  (void)unused;
  MPI_Recv(&value, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return NULL;
}
int main(int argc, char** argv)
{
  int provided, rank, flag;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    pthread_t thread;
    pthread_create(&thread, NULL, receiver, NULL);
    for (int i = 0; i < 300; ++i) {
      MPI_Iprobe(1, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      usleep(1);
    }
    pthread_join(thread, NULL);
  } else {
    usleep(200);
    MPI_Send(&rank, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
)";
} // namespace

// Under MPI_THREAD_MULTIPLE the calls of a rank's threads overlap: each thread's MPI and Portals calls go on a lane of
// its own, MPI calls from their own start (a second thread's call used to restart the first one's, which was drawn
// from the last MPI_Iprobe on).
TEST(MpiTimeline, EachThreadsCallsAreOnALaneOfTheirOwn)
{
  std::string source = temporary_path("threads.c"), binary = temporary_path("threads");
  std::ofstream(source) << kThreadsProgram;
  auto build = run_command(BXISIM_BIN_DIR "/bxicc -O1 " + source + " -o " + binary);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  for (int ranks_per_node : {1, 2}) {
    std::string folder = temporary_path("threads-trace");
    auto result        = run_bxisim("run -n 2 --ppn " + std::to_string(ranks_per_node) +
                                    " --level message --no-cpu-simulation -q --no-summary --trace " + folder + " " + binary);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    std::ifstream file(folder + "/trace.json");
    auto trace = nlohmann::json::parse(file, nullptr, false);
    ASSERT_TRUE(trace.is_object());
    nlohmann::json thread_lane;
    for (const auto& event : trace["traceEvents"])
      if (event["ph"] == "M" && event["name"] == "thread_name" && event["args"]["name"] == "rank 0, thread 1")
        thread_lane = event["tid"];
    ASSERT_FALSE(thread_lane.is_null()) << "no lane for rank 0's thread";
    double receive     = 0;
    int thread_portals = 0; // OpenMPI's Portals calls inside the thread's receive: on its lane too
    for (const auto& event : trace["traceEvents"]) {
      if (event["ph"] == "X" && event["name"] == "MPI_Recv") {
        EXPECT_EQ(event["tid"], thread_lane) << "the receive is the thread's";
        receive = event["dur"].get<double>();
      }
      if (event["ph"] == "X" && event["cat"] == "portals" && event["tid"] == thread_lane)
        ++thread_portals;
    }
    EXPECT_GT(thread_portals, 0) << "--ppn " << ranks_per_node;
    EXPECT_GT(receive, 199.0) << "--ppn " << ranks_per_node << ": from its start to the message after 200 us";
    EXPECT_LT(receive, 205.0) << "--ppn " << ranks_per_node;
  }
}
