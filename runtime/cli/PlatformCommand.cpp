#include "PlatformCommand.hpp"

#include "config/ConfigError.hpp"
#include "platforms/PlatformConfig.hpp"
#include "platforms/PlatformReport.hpp"
#include "platforms/Topologies.hpp"
#include "platforms/XmlExport.hpp"

#include <fstream>
#include <iostream>
#include <memory>

namespace bxisim::runtime
{

namespace
{
struct PlatformCommandOptions {
  std::vector<std::string> route;
  bool no_links = false;
  bool xml      = false;
  std::string output;
};

template <typename Action>
void with_machine(const CommonOptions& common, Action action)
{
  config::Parameters parameters = common.parameters();
  auto platform_config          = platform::PlatformConfig::from_parameters(parameters);
  platform::SetupAbortGuard guard;
  auto engine               = platform::create_engine(common.simulator_options());
  platform::Machine machine = platform::build_machine(platform_config);
  action(machine);
}
} // namespace

void add_platform_command(CLI::App& app, const CommonOptions& common, int& exit_code)
{
  auto options  = std::make_shared<PlatformCommandOptions>();
  auto* command = app.add_subcommand("platform", "Describe the simulated machine");
  command->require_subcommand(1);

  auto* show = command->add_subcommand("show", "Print hosts, links and routes with latencies and bandwidths");
  show->add_option("--route", options->route, "Print the route between two hosts: --route SRC DST (repeatable)")
      ->expected(2)
      ->take_all();
  show->add_flag("--no-links", options->no_links, "Do not list every link");
  show->callback([&common, options, &exit_code] {
    if (options->route.size() % 2 != 0)
      throw config::ConfigError("--route takes two host names: --route SRC DST.");
    platform::ReportOptions report;
    for (size_t i = 0; i + 1 < options->route.size(); i += 2)
      report.routes.emplace_back(options->route[i], options->route[i + 1]);
    report.list_links = not options->no_links;
    with_machine(common, [&report](const platform::Machine& machine) {
      platform::print_platform_report(std::cout, machine, report);
    });
    exit_code = 0;
  });

  auto* export_command = command->add_subcommand("export", "Write the simulated machine in another format");
  export_command->add_flag("--xml", options->xml, "SimGrid XML platform (the only format for now)")->required();
  export_command->add_option("-o,--output", options->output, "Output file (default: standard output)");
  export_command->callback([&common, options, &exit_code] {
    with_machine(common, [&options](const platform::Machine& machine) {
      if (options->output.empty()) {
        platform::export_simgrid_xml(std::cout, machine);
        return;
      }
      std::ofstream file(options->output);
      if (not file)
        throw config::ConfigError("--output '" + options->output + "': cannot write this file.");
      platform::export_simgrid_xml(file, machine);
    });
    exit_code = 0;
  });
}

} // namespace bxisim::runtime
