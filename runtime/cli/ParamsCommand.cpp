#include "ParamsCommand.hpp"

#include "config/ParameterSpec.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>
#include <memory>

namespace bxisim::runtime
{

namespace
{
std::string type_text(const config::ParameterSpec& spec)
{
  if (spec.type == config::ParameterType::Choice)
    return fmt::format("one of {}", fmt::join(spec.choices, ", "));
  return std::string(config::type_name(spec.type));
}

std::string default_text(const config::ParameterSpec& spec)
{
  return spec.default_value.empty() ? "(none)" : std::string(spec.default_value);
}
} // namespace

void print_parameters_markdown(std::ostream& out)
{
  fmt::print(out, "# bxisim parameters\n\n"
                  "Generated from the parameter table (`config/ParameterTable.cpp`) by "
                  "`bxisim params --markdown`; do not edit by hand.\n\n"
                  "Set them in a TOML file given to `--config` (tables nest keys: `[pcie]` then "
                  "`bus_latency = \"250ns\"`), or one by one with `--set key=value`. Quantities take "
                  "SimGrid's units: `12.5GBps`, `100Gbps`, `500ns`, `10Gf`, `64KiB`.\n\n"
                  "| name | type | unit | default | meaning | source of the default |\n"
                  "|---|---|---|---|---|---|\n");
  for (const auto& spec : config::parameter_table())
    fmt::print(out, "| `{}` | {} | {} | `{}` | {} | {} |\n", spec.name, type_text(spec), spec.unit, default_text(spec),
               spec.meaning, spec.source);
}

void add_params_command(CLI::App& app, const CommonOptions& common, int& exit_code)
{
  auto markdown = std::make_shared<bool>(false);
  auto* command = app.add_subcommand("params", "List every parameter: type, unit, default, value, meaning, source");
  command->add_flag("--markdown", *markdown, "Print docs/parameters.md instead");
  command->callback([&common, markdown, &exit_code] {
    if (*markdown) {
      print_parameters_markdown(std::cout);
      exit_code = 0;
      return;
    }
    config::Parameters parameters = common.parameters();
    for (const auto& spec : config::parameter_table()) {
      fmt::print("{:<28} = {:<16} [{}{}] default {}\n", spec.name, parameters.display(spec.name), type_text(spec),
                 spec.unit.empty() ? "" : fmt::format(", {}", spec.unit), default_text(spec));
      fmt::print("    {}\n    source: {}\n", spec.meaning, spec.source);
    }
    exit_code = 0;
  });
}

} // namespace bxisim::runtime
