#include "commands/common_options.hpp"

namespace phasesim::commands {

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? separator : "") + items[i];
  return text;
}

std::string arch_help(const std::vector<std::string>& shorthand) {
  std::vector<std::string> flags;
  for (const auto& name : shorthand) flags.push_back("--" + name);
  return "Architecture: a TOML file of layers of heads (window, stride, offset, gate per head) or "
         "a preset (" +
         joined(niah::architecture_presets()) + "); replaces " + joined(flags);
}

}  // namespace phasesim::commands
