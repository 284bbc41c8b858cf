// The design space's points, their architecture files, and Pareto dominance.
#include <sstream>

#include "phasesim/frontier/frontier.hpp"

namespace phasesim::frontier {

namespace {

// A gate spec as part of a file name: letters, digits, '.' and '-' kept, the rest '_'.
std::string file_safe(const std::string& text) {
  std::string safe = text;
  for (auto& c : safe) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-';
    if (!kept) c = '_';
  }
  return safe;
}

// The layer's gate line(s): the families resolved at the design's window, a spec as it is.
std::string gate_lines(const Design& d) {
  if (d.gate == "spread") {
    std::string line = "channels = [";
    for (int phase = 0; phase < d.stride; ++phase) {
      line += (phase ? ", " : "") + std::string("{ gate = \"onehot:") +
              std::to_string(d.window - d.stride + phase) + "\" }";
    }
    return line + "]\n";
  }
  return "gate = \"" + d.gate + "\"\n";
}

// `heads = H`, or one table a cache with its entry boundaries spread over the stride.
std::string heads_line(const Design& d) {
  std::string line = "heads = [";
  for (int h = 0; h < d.heads; ++h) {
    line += (h ? ", " : "") + std::string("{ offset = ") +
            std::to_string(static_cast<std::int64_t>(h) * d.stride / d.heads) + " }";
  }
  return line + "]\n";
}

}  // namespace

std::string Design::name() const {
  return "s" + std::to_string(stride) + "-w" + std::to_string(window) + "-" + file_safe(gate) +
         "-h" + std::to_string(heads) + "-k" + (top_k ? std::to_string(top_k) : "all") + "-sw" +
         std::to_string(sliding_window);
}

std::vector<Design> designs(const DesignSpace& space) {
  std::vector<Design> all;
  for (const auto ratio : space.ratios)
    for (const auto overlap : space.overlaps)
      for (const auto& gate : space.gates)
        for (const auto heads : space.heads)
          for (const auto k : space.top_k)
            for (const auto window : space.sliding_windows)
              all.push_back({static_cast<int>(ratio), static_cast<int>(overlap * ratio), gate,
                             static_cast<int>(heads), k, static_cast<int>(window)});
  return all;
}

std::string design_toml(const Design& d, const std::vector<std::string>& header) {
  std::ostringstream out;
  for (const auto& line : header) out << "# " << line << "\n";
  out << "# One layer: compress ratio " << d.stride << ", window " << d.window << ", gate "
      << d.gate << ", " << d.heads
      << (d.heads == 1 ? " cache"
                       : " caches (entry boundaries "
                         "spread over the stride)")
      << ", " << (d.top_k ? "the top " + std::to_string(d.top_k) + " entries" : "every entry")
      << " read, sliding window " << d.sliding_window << ".\n";
  out << "name = \"" << d.name() << "\"\n";
  out << "description = \"frontier design: W = " << d.window << ", S = " << d.stride << ", gate "
      << d.gate << "\"\n\n[[layer]]\n";
  out << "window = " << d.window << "\nstride = " << d.stride << "\n" << gate_lines(d);
  out << (d.heads == 1 ? std::string("heads = 1\n") : heads_line(d));
  if (d.top_k) out << "top_k = " << d.top_k << "\n";
  if (d.sliding_window) out << "sliding_window = " << d.sliding_window << "\n";
  return out.str();
}

bool dominates(const Point& a, const Point& b, std::optional<double> weight) {
  std::vector<double> gains{b.kv - a.kv, b.read - a.read};  // positive: a is better
  if (weight) {
    gains.push_back((*weight * a.mean + (1 - *weight) * a.worst) -
                    (*weight * b.mean + (1 - *weight) * b.worst));
  } else {
    gains.push_back(a.worst - b.worst);
    gains.push_back(a.mean - b.mean);
  }
  bool better = false;
  for (const double gain : gains) {
    if (gain < 0) return false;
    better = better || gain > 0;
  }
  return better;
}

std::vector<bool> pareto_front(std::span<const Point> points, std::optional<double> weight) {
  std::vector<bool> front(points.size(), true);
  for (std::size_t i = 0; i < points.size(); ++i)
    for (std::size_t j = 0; j < points.size() && front[i]; ++j)
      if (j != i && dominates(points[j], points[i], weight)) front[i] = false;
  return front;
}

}  // namespace phasesim::frontier
