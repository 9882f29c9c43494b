#include "OpenMpi.hpp"

#include "CopyCache.hpp"
#include "ExitCodes.hpp"
#include "LibraryThreadCall.hpp"
#include "OutputRouter.hpp"
#include "RankBarrier.hpp"
#include "RankServices.hpp"
#include "config/ConfigError.hpp"
#include "middleware/ProgramCheck.hpp"
#include "portals/core/Core.hpp"
#include "runtime/os/CodePages.hpp"
#include "runtime/os/KilledRankTermination.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include "runtime/os/SimulatorDescriptors.hpp"
#include "runtime/os/ThreadInterposition.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <xbt/log.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string_view>
#include <unistd.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_openmpi, bxisim_runtime, "OpenMPI per rank: copies, start-up hooks, abort");

#ifndef BXISIM_OPENMPI_DEFAULT_PREFIX
#define BXISIM_OPENMPI_DEFAULT_PREFIX ""
#endif

namespace fs = std::filesystem;

namespace bxisim::runtime
{

namespace
{
constexpr const char* kLibraryName = "libbxisim-openmpi.so";
OpenMpiJob* the_job                = nullptr;

const mw::LibraryEdges kLibraryEdges{[] {
                                       Rank* rank = os::running_rank();
                                       return rank == nullptr || rank->enter_library();
                                     },
                                     [] {
                                       if (Rank* rank = os::running_rank())
                                         rank->leave_library();
                                     }};

/** The undefined dynamic symbols of an ELF shared object (empty if it is not one). */
std::vector<std::string> undefined_symbols(const std::string& path)
{
  std::ifstream file(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (not file.read(reinterpret_cast<char*>(&header), sizeof(header)) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    return {};
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  file.seekg(static_cast<std::streamoff>(header.e_shoff));
  file.read(reinterpret_cast<char*>(sections.data()),
            static_cast<std::streamsize>(sections.size() * sizeof(Elf64_Shdr)));
  if (not file)
    return {};
  std::vector<std::string> result;
  for (const auto& section : sections) {
    if (section.sh_type != SHT_DYNSYM || section.sh_link >= sections.size())
      continue;
    const Elf64_Shdr& strings_section = sections[section.sh_link];
    std::string strings(strings_section.sh_size, '\0');
    file.seekg(static_cast<std::streamoff>(strings_section.sh_offset));
    file.read(strings.data(), static_cast<std::streamsize>(strings.size()));
    std::vector<Elf64_Sym> symbols(section.sh_size / sizeof(Elf64_Sym));
    file.seekg(static_cast<std::streamoff>(section.sh_offset));
    file.read(reinterpret_cast<char*>(symbols.data()), static_cast<std::streamsize>(section.sh_size));
    if (not file)
      return {};
    for (const auto& symbol : symbols)
      if (symbol.st_shndx == SHN_UNDEF && symbol.st_name != 0 && symbol.st_name < strings.size())
        result.emplace_back(strings.c_str() + symbol.st_name);
  }
  return result;
}

/** Sets OMPI_MCA_<key>=<value> unless the environment already has it (the user's setting wins). */
void set_mca_default(const std::string& key, const std::string& value)
{
  setenv(("OMPI_MCA_" + key).c_str(), value.c_str(), 0);
}

/** The value an MCA parameter will have: the environment's, else "". */
std::string mca_value(const std::string& key)
{
  const char* value = std::getenv(("OMPI_MCA_" + key).c_str());
  return value != nullptr ? value : "";
}

/** The components an MCA selection names ("a,b" or "^a,b"), without the exclusion mark. */
std::vector<std::string> mca_components(const std::string& selection)
{
  std::string list = not selection.empty() && selection.front() == '^' ? selection.substr(1) : selection;
  std::vector<std::string> components;
  for (size_t start = 0; start <= list.size();) {
    size_t end = std::min(list.find(',', start), list.size());
    components.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return components;
}

/** MPI-IO goes through ompio: bxisim's OpenMPI is built without ROMIO (mpi_patches/configure-options). Asked for
 * anyway, OpenMPI only prints that the component is missing, MPI_File_open fails, and a program that does not
 * check (files return errors by default) crashes in the next file call. */
void refuse_io_components_not_built(const std::string& io)
{
  if (io.empty() || io.front() == '^')
    return;
  for (const auto& component : mca_components(io))
    if (component != "ompio")
      throw config::ConfigError(fmt::format(
          "--mca io {}: bxisim's OpenMPI has no MPI-IO component '{}' (it is built without ROMIO, "
          "mpi_patches/configure-options); its one component is ompio: leave --mca io out or give --mca io ompio.",
          io, component));
}

/** Whether the BTL selection can include the shared-memory BTL (a progress source Portals does not see). */
bool shared_memory_btl_possible(const std::string& btl)
{
  bool excluding = btl.empty() || btl.front() == '^';
  bool named     = false;
  for (const auto& component : mca_components(btl))
    named = named || component == "vader" || component == "sm";
  return excluding ? not named : named;
}
} // namespace

bool program_uses_mpi(const std::string& program)
{
  for (const auto& name : undefined_symbols(program))
    if (mw::is_bxisim_mpi_entry(name.c_str()) || name == "bxisim_openmpi_handle")
      return true;
  return false;
}

bool program_uses_regions(const std::string& program)
{
  for (const auto& name : undefined_symbols(program))
    if (name == "bxisim_region_begin" || name == "bxisim_region_begin_") // C, Fortran
      return true;
  return false;
}

std::string openmpi_prefix()
{
  const char* chosen = std::getenv("BXISIM_OPENMPI_PREFIX");
  if (chosen != nullptr && *chosen != '\0')
    return chosen;
  // Installed (cmake --install): <prefix>/lib/bxisim/openmpi next to <prefix>/bin/bxisim; else the build's cache.
  std::error_code error;
  auto installed = fs::read_symlink("/proc/self/exe", error).parent_path().parent_path() / "lib/bxisim/openmpi";
  if (not error && fs::exists(installed / "complete", error))
    return installed.string();
  return BXISIM_OPENMPI_DEFAULT_PREFIX;
}

std::string openmpi_library()
{
  return openmpi_prefix() + "/lib/" + kLibraryName;
}

OpenMpiJob::OpenMpiJob(const std::vector<std::unique_ptr<Rank>>& ranks, const std::vector<McaSetting>& mca,
                       const config::Parameters& parameters, RunFolder& folder)
    : ranks_(ranks), fence_(std::make_unique<RankBarrier>())
{
  std::string prefix = openmpi_prefix();
  library_           = openmpi_library();
  if (prefix.empty() || not fs::exists(prefix + "/complete") || not fs::exists(library_))
    throw config::ConfigError(fmt::format(
        "the program calls MPI, but bxisim's OpenMPI build is not at {}: build it with mpi_patches/build (run by "
        "scripts/setup; 6 to 40 minutes the first time), or point BXISIM_OPENMPI_PREFIX at an existing build.",
        prefix.empty() ? std::string("(no folder configured)") : prefix));

  // OpenMPI reads its MCA parameters from the environment when each copy initialises; every copy
  // reads the same ones. Precedence: --mca, then the user's OMPI_MCA_*, then bxisim's defaults.
  for (const auto& [key, value] : mca) {
    if (key.empty() || key.find_first_of("= ") != std::string::npos)
      throw config::ConfigError(fmt::format("--mca '{}' '{}': the name of an MCA parameter has no '=' or space "
                                            "(for example --mca btl_portals4_eager_limit 4096).",
                                            key, value));
    setenv(("OMPI_MCA_" + key).c_str(), value.c_str(), 1);
  }
  refuse_io_components_not_built(mca_value("io"));
  const std::string& pml = parameters.text("mpi.pml");
  set_mca_default("pml", pml);
  if (pml == "ob1") {
    set_mca_default("btl", "self,portals4");
  } else {
    set_mca_default("mtl", "portals4");
  }
  set_mca_default("pmix", "isolated");
  set_mca_default("opal_signal", ""); // bxisim reports crashes itself (CrashReport)
  // sharedfp/sm keeps its shared file pointer in OpenMPI's session directory, which no launcher made here:
  // every MPI_File_open printed "unable to open file for mmap" before another component was chosen.
  set_mca_default("sharedfp", "^sm");
  // OpenMPI 4.1's op/avx sums 8- and 16-bit integers with saturating instructions (open-mpi/ompi#8045):
  // sums that should wrap around stop at the type's limit. The base component computes them right.
  set_mca_default("op", "^avx");
  // The BTLs that do not declare themselves thread-safe (portals4) leave the job under MPI_THREAD_MULTIPLE ("BTLs
  // attempted: self"). A rank's threads are simulated threads that switch only inside simulator calls, and OpenMPI
  // takes its own locks around the BTL's shared state.
  set_mca_default("btl_base_thread_multiple_override", "1");
  // topo/treematch reorders the ranks of MPI_Dist_graph_create(_adjacent)(reorder=1) by the hardware topology of
  // the machine bxisim runs on (hwloc), not the simulated nodes', and asks the modex for node ids, which nobody
  // publishes ("Unable to extract peer ... nodeid from the modex" per rank, MPICH topo/distgraph1). topo/basic
  // keeps the ranks in order, as the smpi level does.
  set_mca_default("topo", "^treematch");
  // btl/vader (--mca btl self,vader,portals4) names its segments by host, job id and local rank, the same in every
  // run here (simulated node names, job 1): in /dev/shm two runs at once would share them, and no launcher removes
  // them. In the run's own folder they are the run's, and go with it.
  set_mca_default("btl_vader_backing_directory", folder.path());
  // osc/sm (and osc/rdma) name a window's segment by node, job id, rank and communicator id in the same way: two runs
  // at once mapped the same /dev/shm file for their windows (OSHMPI's symmetric heaps corrupted each other's
  // allocator: a crash in one of two tests run by `make -j2 check`).
  set_mca_default("osc_sm_backing_directory", folder.path());
  set_mca_default("osc_rdma_backing_directory", folder.path());
  setenv("OPAL_PREFIX", prefix.c_str(), 0); // help texts and parameter files of the build
  // OpenMPI 4.1.4's btl/portals4 sends a fragment longer than its eager limit (32 KiB) as a "long" message,
  // which only its zero-length overflow entry matches: the data is dropped, yet the sender completes. ob1
  // pipelines the rendezvous of non-contiguous data over 32 KiB in fragments up to btl_max_send_size
  // (64 KiB), so such a receive never ended (MPICH pt2pt/mprobe). No fragment longer than the eager limit:
  const std::string eager =
      mca_value("btl_portals4_eager_limit").empty() ? "32768" : mca_value("btl_portals4_eager_limit");
  set_mca_default("btl_portals4_max_send_size", eager);
  if (mca_value("pml") == "ob1" && std::strtoll(mca_value("btl_portals4_max_send_size").c_str(), nullptr, 0) >
                                       std::strtoll(eager.c_str(), nullptr, 0))
    XBT_WARN("--mca btl_portals4_max_send_size %s exceeds the eager limit %s: OpenMPI 4.1.4's btl/portals4 drops "
             "every fragment longer than its eager limit (a receive of non-contiguous data then never ends); give "
             "btl_portals4_max_send_size the value of btl_portals4_eager_limit",
             mca_value("btl_portals4_max_send_size").c_str(), eager.c_str());
  // Its receive buffers used up (8 blocks of 256 KiB by default, no flow control), a Put that asked for an
  // acknowledgement is dropped and NACKed; btl/portals4's PTL_EVENT_ACK handler ignores ni_fail_type and completes the
  // fragment: the data is lost, and the ranks waiting for it poll for ever (ARMCI-MPI's test_mpi_accs, its ring flood).
  if (mca_value("pml") == "ob1")
    portals::Core::instance().set_acknowledged_drop_advice(
        "OpenMPI 4.1.4's btl/portals4 takes this NACK for success (its handler of PTL_EVENT_ACK does not read "
        "ni_fail_type): the data is lost and the ranks waiting for it wait for ever. Its receive buffers were used up "
        "(one-sided or unexpected messages faster than they are taken): give it more, --mca btl_portals4_recv_md_num "
        "64 (default 8 blocks of btl_portals4_recv_md_size, 256 KiB).");
  if (mca_value("pml") == "ob1" && mca_value("btl").find("portals4") == std::string::npos)
    XBT_WARN("--mca btl %s leaves out portals4: ranks on different nodes cannot reach each other",
             mca_value("btl").c_str());
  // osc/portals4 finds its peers through the Portals MTL's endpoints (ompi_mtl_portals4_get_proc_group),
  // which only the cm path creates: under ob1 its first MPI_Put dereferences a missing endpoint.
  // OpenMPI then takes osc/pt2pt, over the pml.
  if (mca_value("pml") != "cm") {
    set_mca_default("osc", "^portals4");
    const std::string osc = mca_value("osc");
    if (not osc.empty() && osc.front() != '^' && osc.find("portals4") != std::string::npos)
      XBT_WARN("--mca osc %s: osc portals4 needs --pml cm (it uses the Portals MTL's endpoints); with pml %s "
               "one-sided calls will crash",
               osc.c_str(), mca_value("pml").c_str());
    // OpenMPI 4.1.4's osc/pt2pt answers a compare-and-swap with a blocking send while it holds the window's
    // accumulate lock (ompi_osc_pt2pt_cswap_start). A btl/portals4 send ends with a Portals event, so that
    // send runs opal_progress, which processes the next one-sided fragment already received: one that needs
    // the same lock (compare-and-swap, accumulate) spins for it in ompi_osc_pt2pt_acc_op_queue, above the
    // frame that holds it, for ever (MPICH rma/linked_list_fop, mutex_bench). With one receive posted per
    // window, no fragment can arrive while one is processed.
    set_mca_default("osc_pt2pt_receive_count", "1");
    if (std::strtoll(mca_value("osc_pt2pt_receive_count").c_str(), nullptr, 0) > 1)
      XBT_WARN("--mca osc_pt2pt_receive_count %s: OpenMPI 4.1.4's osc/pt2pt can hang for ever when a window "
               "receives several compare-and-swap or accumulate operations at once (it replies to a "
               "compare-and-swap with a blocking send while it holds the window's accumulate lock); leave it at 1",
               mca_value("osc_pt2pt_receive_count").c_str());
  }

  polls_block_ = parameters.text("mpi.polling") == "block";
  if (polls_block_ && mca_value("pml") != "cm" && shared_memory_btl_possible(mca_value("btl"))) {
    XBT_INFO("btl %s may use shared memory, which Portals events do not announce: empty polls sleep a growing "
             "delay instead of blocking (mpi.polling=block applies to Portals-only progress)",
             mca_value("btl").c_str());
    polls_block_ = false;
  }

  copy_at_load_.assign(ranks_.size(), 0);
  CopyCache cache(library_, parameters.integer("mpi.copy_cache"));
  bool told_why_not = false;
  for (const auto& rank : ranks_) {
    if (std::string kept = cache.copy(rank->index()); not kept.empty()) {
      copies_.push_back(kept);
      continue;
    }
    if (not cache.why_not().empty() && not told_why_not) {
      told_why_not = true;
      XBT_VERB("OpenMPI copies cannot be kept between runs (%s): this run's copies go to its own folder",
               cache.why_not().c_str());
    }
    // Made when the rank loads it, then reduced to its writable part (load): copies made all at once took the
    // library's size per rank of disk (6 MB; 24 GB at 4096 ranks).
    std::string copy = fmt::format("{}/{}", folder.rank_folder(rank->index()), kLibraryName);
    folder.add_file(copy);
    copies_.push_back(copy);
    copy_at_load_[static_cast<size_t>(rank->index())] = 1;
  }
  library_descriptor_ = os::move_to_simulator_range(::open(library_.c_str(), O_RDONLY | O_CLOEXEC));
  handles_.assign(ranks_.size(), nullptr);
  blocking_depth_.assign(ranks_.size(), nullptr);
  work_count_.assign(ranks_.size(), nullptr);
  work_seen_.assign(ranks_.size(), 0);
  calls_seen_.assign(ranks_.size(), 0);
  aio_seen_.assign(ranks_.size(), 0);
  poll_rule_.assign(ranks_.size(), PollRule());
  dispatch_.resize(ranks_.size());
  the_job = this;
  // The program's MPI calls (mpi.h's entry points) go to the calling rank's dispatch.
  mw::set_rank_provider([this]() -> mw::RankMpi* {
    if (on_library_thread())
      refuse_library_thread_call("an MPI function");
    Rank* rank = os::running_rank();
    return rank != nullptr ? dispatch_.at(static_cast<size_t>(rank->index())).get() : nullptr;
  });
  // Under MPI_THREAD_MULTIPLE several threads of a rank are in MPI calls at once, each in its own.
  mw::set_thread_provider(&os::running_simulated_thread);
  mw::set_concurrent_call_handler([](int rank) {
    os::SimulatorCall call; // a simulator call, made from the rank's code (its OpenMPI copy)
    portals::Core::instance().wake_process(static_cast<uint32_t>(rank));
  });
  os::set_sibling_wait_handler([](Rank& rank) {
    const auto& dispatch = the_job->dispatch_.at(static_cast<size_t>(rank.index()));
    if (dispatch != nullptr && dispatch->others_in_calls())
      portals::Core::instance().wake_process(static_cast<uint32_t>(rank.index()));
  });
  // OpenMPI's own code is not the program's computation unless cpu.mpi_library (Rank::enter_library).
  mw::set_library_edges(&kLibraryEdges);
}

OpenMpiJob::~OpenMpiJob()
{
  // The copies stay loaded: their destructors run at exit, and the MPI state they hold may still
  // be referenced by the program's copy.
  mw::set_rank_provider(nullptr);
  mw::set_thread_provider(nullptr);
  mw::set_concurrent_call_handler(nullptr);
  os::set_sibling_wait_handler(nullptr);
  mw::set_library_edges(nullptr);
  the_job = nullptr;
  if (library_descriptor_ >= 0)
    ::close(library_descriptor_); // the copies' mappings hold the file
}

OpenMpiJob* OpenMpiJob::current()
{
  return the_job;
}

bool OpenMpiJob::load(Rank& rank)
{
  auto index = static_cast<size_t>(rank.index());
  if (copy_at_load_.at(index) != 0) {
    try {
      RunFolder::copy_file(library_, copies_[index]);
    } catch (const config::ConfigError& error) {
      XBT_ERROR("rank %d %s", rank.index(), error.what());
      return false;
    }
  }
  // RTLD_LOCAL so that each rank's copy keeps its own symbols; not RTLD_DEEPBIND, which would bind
  // the copy's clock_gettime & co. to libc's rather than to the executable's simulated ones.
  void* handle = dlopen(copies_.at(index).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    XBT_ERROR("rank %d cannot load its copy of OpenMPI (%s): %s. Rebuild it with mpi_patches/build.", rank.index(),
              library_.c_str(), dlerror());
    return false;
  }
  handles_[index] = handle;
  auto shared     = os::share_read_only_pages(handle, library_descriptor_);
  if (shared.empty())
    XBT_VERB("rank %d's copy of OpenMPI keeps code pages of its own (%s cannot be mapped in its place)", rank.index(),
             library_.c_str());
  else if (copy_at_load_[index] != 0)
    os::release_file_ranges(copies_[index], shared);
  try {
    dispatch_[index] = mw::make_openmpi_rank(handle, rank.index());
  } catch (const std::runtime_error& error) {
    XBT_ERROR("rank %d cannot use its copy of OpenMPI: %s", rank.index(), error.what());
    return false;
  }
  blocking_depth_[index] = static_cast<const int*>(dlsym(handle, "opal_progress_blocking_depth"));
  work_count_[index]     = static_cast<const unsigned long*>(dlsym(handle, "opal_progress_work_count"));
  if (blocking_depth_[index] == nullptr || work_count_[index] == nullptr)
    XBT_WARN("%s lacks %s (mpi_patches %s): empty polls will sleep instead of block", library_.c_str(),
             blocking_depth_[index] == nullptr ? "opal_progress_blocking_depth" : "opal_progress_work_count",
             blocking_depth_[index] == nullptr ? "0004" : "0007");
  XBT_DEBUG("rank %d loaded its OpenMPI copy %s", rank.index(), copies_[index].c_str());
  return true;
}

std::string OpenMpiJob::mpi_call(int rank) const
{
  const auto& dispatch = dispatch_.at(static_cast<size_t>(rank));
  return dispatch != nullptr && dispatch->current_call() != nullptr ? dispatch->current_call() : std::string();
}

namespace
{
/** An MPI call that must return without waiting for another rank: MPI_Iprobe, MPI_Test*, MPI_Isend, MPI_Ibcast,
 * ... OpenMPI's cm path still waits inside some of them (MPI_Iprobe for its own PtlMESearch's event). */
bool never_waits_for_others(const char* call)
{
  if (call == nullptr)
    return false;
  std::string_view name(call);
  auto starts = [&name](std::string_view prefix) { return name.substr(0, prefix.size()) == prefix; };
  if (starts("MPI_Test") || starts("MPI_Request_get_status") || starts("MPI_Win_test"))
    return true;
  return starts("MPI_I") && not starts("MPI_Init") && not starts("MPI_Info") && not starts("MPI_Intercomm");
}
} // namespace

std::function<bool(uint32_t)> OpenMpiJob::poll_blocking_rule()
{
  if (not polls_block_)
    return nullptr;
  return [this](uint32_t id) {
    const int* depth                = id < blocking_depth_.size() ? blocking_depth_[id] : nullptr;
    const unsigned long* work_count = id < work_count_.size() ? work_count_[id] : nullptr;
    if (depth == nullptr || *depth <= 0 || work_count == nullptr)
      return false;
    // What the rank did outside Portals since its last poll here counts as a change: its quiet polls count from
    // zero.
    auto acted_if_moved = [id](auto count, auto& seen) {
      if (count != seen) {
        seen = count;
        portals::Core::instance().program_acted(id);
      }
    };
    // OpenMPI's progress did work that Portals does not see (a step of a communicator id's agreement, a libnbc
    // round between ranks of one process, a pending send started).
    acted_if_moved(*work_count, work_seen_[id]);
    // The rank entered another MPI call. Without it quiet polls added up over successive calls, and the 9th
    // MPI_Wait in a row of a 1-rank MPI_Ialltoall (libnbc progress, no Portals change) blocked for ever (MPICH
    // coll/nonblocking2).
    const auto& dispatch = dispatch_[id];
    if (dispatch != nullptr)
      acted_if_moved(dispatch->calls_entered(), calls_seen_[id]);
    // OMPIO's progress of a file request posts the next batch of its pieces' asynchronous requests (2048 a round);
    // a write of 9 batches or more blocked for ever in MPI_Wait (HDF5's t_bigio).
    acted_if_moved(ranks_[id]->process_state().aio_requests, aio_seen_[id]);
    // Empty polls sleep (cpu.poll_delay_min doubling to cpu.poll_delay_max) instead of blocking in calls that never
    // wait for another rank: a loop of MPI_Iprobe with nothing to find blocked for ever with --pml cm (MPICH
    // rma/linked_list_fop).
    if (dispatch == nullptr)
      return true;
    PollRule& rule = poll_rule_[id];
    if (const char* call = dispatch->calling_thread_call(); call != rule.call)
      rule = {call, not never_waits_for_others(call)};
    return rule.blocks;
  };
}

void OpenMpiJob::fence(Rank& rank)
{
  // The fence of OpenMPI's start-up and end: a barrier of every rank, in no simulated time.
  auto ranks = static_cast<int>(ranks_.size());
  fence_->arrive_and_wait(rank, ranks, [ranks](int arrived) {
    return fmt::format("the fence of MPI_Init or MPI_Finalize ({} of {} ranks arrived; a rank that ended without "
                       "MPI_Finalize never arrives)",
                       arrived, ranks);
  });
}

void OpenMpiJob::abort(Rank& rank, int code)
{
  if (abort_.rank >= 0)
    return;
  abort_ = {rank.index(), code};
  XBT_DEBUG("rank %d aborts the job with code %d", rank.index(), code);
  os::kill_every_actor(); // every other rank and the NIC actors; the caller then ends itself
}

} // namespace bxisim::runtime

// --- Start-up hooks, found by the patched OpenMPI with dlsym(RTLD_DEFAULT) (mpi_patches 0001) ------
namespace
{
using bxisim::os::running_rank;
using bxisim::os::SimulatorCall;
using bxisim::runtime::OpenMpiJob;
using bxisim::runtime::Rank;

/** Where a rank's OpenMPI keys live in bxisim's key/value store. */
std::string rank_key(int rank, const char* key)
{
  return fmt::format("openmpi/{}/{}", rank, key);
}

/** The calling rank and its job; ends the process with a message if OpenMPI runs outside a rank. */
std::pair<Rank*, OpenMpiJob*> caller(Rank* rank, const char* hook)
{
  OpenMpiJob* job = OpenMpiJob::current();
  if (rank == nullptr || job == nullptr) {
    fmt::print(stderr, "bxisim: OpenMPI called {} outside a rank of `bxisim run`; MPI runs only in ranks\n", hook);
    std::abort();
  }
  return {rank, job};
}

int hook_rank()
{
  return caller(running_rank(), "rank").first->index();
}

int hook_size()
{
  return caller(running_rank(), "size").first->size();
}

int hook_local_rank()
{
  return caller(running_rank(), "local_rank").first->placement().local_rank;
}

int hook_local_peers(int* ranks, int capacity)
{
  auto [rank, job] = caller(running_rank(), "local_peers");
  int count        = 0;
  for (const auto& other : job->ranks())
    if (other->placement().node == rank->placement().node) {
      if (count < capacity)
        ranks[count] = other->index();
      ++count;
    }
  return count;
}

void hook_kv_put(const char* key, const void* data, size_t size)
{
  SimulatorCall call;
  auto [rank, job]  = caller(call.rank(), "kv_put");
  const auto* bytes = static_cast<const char*>(data);
  bxisim::runtime::kv_store_set(rank_key(rank->index(), key), std::vector<char>(bytes, bytes + size));
}

int hook_kv_get(int owner, const char* key, void** data, size_t* size)
{
  SimulatorCall call;
  caller(call.rank(), "kv_get");
  const std::vector<char>* value = bxisim::runtime::kv_store_find(rank_key(owner, key));
  if (value == nullptr)
    return -1;
  *data = std::malloc(std::max<size_t>(value->size(), 1));
  std::memcpy(*data, value->data(), value->size());
  *size = value->size();
  return 0;
}

void hook_fence()
{
  SimulatorCall call;
  auto [rank, job] = caller(call.rank(), "fence");
  job->fence(*rank);
}

void hook_abort(int code, const char* message)
{
  SimulatorCall call;
  auto [rank, job] = caller(call.rank(), "abort");
  if (job->abort_state().rank >= 0) // OpenMPI aborts the peers, then the job: one message
    return;
  if (message != nullptr && std::strcmp(message, "N/A") == 0)
    message = nullptr;
  FILE* out = bxisim::runtime::OutputRouter::original_stderr();
  fmt::print(out, "bxisim: rank {} called MPI_Abort with error code {}{}{}; the job ends.\n", rank->index(), code,
             message != nullptr && *message != '\0' ? ": " : "", message != nullptr ? message : "");
  std::fflush(out);
  job->abort(*rank, code);
}
} // namespace

extern "C" {

struct BxisimOpenmpiHooks {
  int version;
  int (*rank)();
  int (*size)();
  int (*local_rank)();
  int (*local_peers)(int* ranks, int capacity);
  void (*kv_put)(const char* key, const void* data, size_t size);
  int (*kv_get)(int rank, const char* key, void** data, size_t* size);
  void (*fence)();
  void (*abort)(int code, const char* message);
};

/** Layout and version must match BXISIM_OPENMPI_HOOKS_VERSION in mpi_patches/0001. */
extern const BxisimOpenmpiHooks bxisim_openmpi_hooks;
const BxisimOpenmpiHooks bxisim_openmpi_hooks = {
    1, hook_rank, hook_size, hook_local_rank, hook_local_peers, hook_kv_put, hook_kv_get, hook_fence, hook_abort};

/** What the patched OpenMPI calls for what bxisim does not simulate: says so and ends the job. */
void bxisim_openmpi_refuse(const char* what)
{
  {
    SimulatorCall call;
    auto [rank, job] = caller(call.rank(), "refuse");
    const char* why  = "bxisim runs the ranks given by `bxisim run -n` and no others; start every process of the job "
                       "with -n instead of spawning or connecting";
    FILE* out        = bxisim::runtime::OutputRouter::original_stderr();
    fmt::print(out, "bxisim: rank {}: {} is not supported: {}. The job ends.\n", rank->index(), what, why);
    std::fflush(out);
    job->abort(*rank, bxisim::runtime::kRankFailedExitCode);
  }
  std::exit(bxisim::runtime::kRankFailedExitCode); // ends this rank (the interposed exit)
}

/** The calling rank's OpenMPI copy (a dlopen handle), for the runtime's own tests of the copies. */
void* bxisim_openmpi_handle()
{
  Rank* rank      = running_rank();
  OpenMpiJob* job = OpenMpiJob::current();
  return rank != nullptr && job != nullptr ? job->handle(rank->index()) : nullptr;
}

} // extern "C"
