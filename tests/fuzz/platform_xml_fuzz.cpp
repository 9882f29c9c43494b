// Fuzz target: a SimGrid XML platform (platform.topology=xml, platform.xml=FILE), loaded as
// `bxisim platform show` and `platform export --xml` do: SimGrid parses it, bxisim checks its hosts,
// makes them nodes, reports hosts, links and routes, and exports it back. Each input runs in a child
// process (ForkedRun.hpp); bad input must end in a ConfigError or SimGrid's clean refusal (exit code 2).
#include "ForkedRun.hpp"

#include "config/Parameters.hpp"
#include "platforms/PlatformConfig.hpp"
#include "platforms/PlatformReport.hpp"
#include "platforms/SimulatorSetup.hpp"
#include "platforms/Topologies.hpp"
#include "platforms/XmlExport.hpp"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace
{
const std::string& folder()
{
  // Never destroyed: the exit handler below needs it after static destructors have run.
  static const std::string* path = [] {
    const char* tmpdir  = std::getenv("TMPDIR");
    std::string pattern = std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") + "/fuzz-xml-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    return new std::string(pattern);
  }();
  static const bool cleaned = [] {
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(*path, ignored);
    });
    return true;
  }();
  (void)cleaned;
  return *path;
}

int load_platform(const std::string& file)
{
  auto parameters = bxisim::config::Parameters::defaults();
  parameters.set("platform.topology", "xml");
  parameters.set("platform.xml", file);
  auto config = bxisim::platform::PlatformConfig::from_parameters(parameters);
  bxisim::platform::SetupAbortGuard guard;
  auto engine  = bxisim::platform::create_engine({});
  auto machine = bxisim::platform::build_machine(config);
  std::ostringstream sink;
  bxisim::platform::print_platform_report(sink, machine, {});
  bxisim::platform::export_simgrid_xml(sink, machine);
  return 0;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string file = folder() + "/platform.xml";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  bxisim::fuzz::run_in_child([&file] { return load_platform(file); });
  return 0;
}
