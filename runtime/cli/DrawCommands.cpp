#include "DrawCommands.hpp"

#include "PythonScript.hpp"

#include <memory>
#include <string>
#include <vector>

namespace bxisim::runtime
{

void add_trace_command(CLI::App& app, int& exit_code)
{
  auto* trace = app.add_subcommand("trace", "Work with the timelines of `bxisim run --trace DIR`");
  trace->require_subcommand(1);
  struct Options {
    std::string folder;
    std::string output = "timeline.png";
    std::string from, to, title, lanes;
  };
  auto options = std::make_shared<Options>();
  auto* render = trace->add_subcommand(
      "render", "Draw DIR/trace.json as a PNG: ranks and NIC stages as lanes, simulated microseconds across");
  render->add_option("folder", options->folder, "The folder given to bxisim run --trace")->required();
  render->add_option("-o,--output", options->output, "PNG to write")->default_str("timeline.png");
  render->add_option("--from-us", options->from, "Start of the time window, in simulated microseconds");
  render->add_option("--to-us", options->to, "End of the time window, in simulated microseconds");
  render->add_option("--title", options->title, "Title of the picture");
  render->add_option("--lanes", options->lanes,
                     "Draw only the lanes whose label matches this regular expression (e.g. 'node1 ')");
  render->callback([options, &exit_code] {
    std::vector<std::string> arguments{options->folder, "-o", options->output};
    for (const auto& [flag, value] : {std::pair{"--from-us", options->from},
                                      {"--to-us", options->to},
                                      {"--title", options->title},
                                      {"--lanes", options->lanes}})
      if (not value.empty())
        arguments.insert(arguments.end(), {flag, value});
    exit_code = run_python_script("render_timeline.py", arguments);
  });
}

void add_plot_command(CLI::App& app, int& exit_code)
{
  struct Options {
    std::vector<std::string> files;
    std::string output_dir;
  };
  auto options = std::make_shared<Options>();
  auto* plot   = app.add_subcommand(
        "plot", "Turn benchmark CSVs (benchmarks/) into PNG plots, one per CSV: log-log where sizes span decades, one "
                  "curve per level or configuration");
  plot->add_option("csv", options->files, "CSV files written by the benchmarks")->required()->check(CLI::ExistingFile);
  plot->add_option("-o,--output-dir", options->output_dir, "Folder of the PNGs (default: next to each CSV)");
  plot->callback([options, &exit_code] {
    std::vector<std::string> arguments = options->files;
    if (not options->output_dir.empty())
      arguments.insert(arguments.end(), {"--output-dir", options->output_dir});
    exit_code = run_python_script("plot_csv.py", arguments);
  });
}

} // namespace bxisim::runtime
