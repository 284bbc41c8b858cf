#include "phasesim/niah/read_path.hpp"

#include <cmath>

#include "phasesim/core/error.hpp"

namespace phasesim::niah {
namespace {

template <class T>
std::optional<T> either(const std::optional<T>& mine, const std::optional<T>& other) {
  return mine ? mine : other;
}

// "invalid --top-k 0 (why)" on the command line, "invalid FILE: layer 2: top_k 0 (why)" in a file.
[[noreturn]] void refuse(const std::string& where, const std::string& option,
                         const std::string& value, const std::string& why) {
  std::string key = option;
  if (!where.empty()) {
    for (char& c : key) c = c == '-' ? '_' : c;
  }
  throw InputError("invalid " + (where.empty() ? "--" + key : where + key) + " " + value + " (" +
                   why + ")");
}

}  // namespace

ReadPathValues ReadPathValues::over(const ReadPathValues& fallback) const {
  return {either(top_k, fallback.top_k),
          either(index_gate, fallback.index_gate),
          either(index_beta, fallback.index_beta),
          either(index_rho, fallback.index_rho),
          either(sliding_window, fallback.sliding_window),
          either(sink, fallback.sink),
          either(beta, fallback.beta),
          either(raw_blocks, fallback.raw_blocks)};
}

ReadPath ReadPathValues::resolve() const {
  return {top_k,
          index_gate,
          index_beta,
          index_rho.value_or(0.0),
          static_cast<int>(sliding_window.value_or(0)),
          sink,
          beta,
          raw_blocks.value_or(false)};
}

bool ReadPathValues::empty() const {
  return !top_k && !index_gate && !index_beta && !index_rho && !sliding_window && !sink && !beta &&
         !raw_blocks;
}

void validate_read_path(const ReadPathValues& v, const std::string& where) {
  if (v.top_k && (*v.top_k < 1 || *v.top_k > kMaxTopK)) {
    refuse(where, "top-k", std::to_string(*v.top_k),
           *v.top_k < 1 ? "must be at least 1"
                        : "must be at most " + std::to_string(kMaxTopK) +
                              "; a k at least the entries keeps all of them");
  }
  if (v.index_rho && !(*v.index_rho >= -1 && *v.index_rho <= 1)) {
    refuse(where, "index-rho", format_number(*v.index_rho),
           "the correlation of an entry's selection and attention logits must be in [-1, 1]");
  }
  if (v.index_beta && !(std::isfinite(*v.index_beta) && *v.index_beta >= 0)) {
    refuse(where, "index-beta", format_number(*v.index_beta), "must be finite and >= 0");
  }
  if (v.sliding_window && (*v.sliding_window < 0 || *v.sliding_window > (1LL << 31) - 1)) {
    refuse(where, "sliding-window", std::to_string(*v.sliding_window),
           "must be at least 0 and at most the context");
  }
  if (v.sink && !std::isfinite(*v.sink)) {
    refuse(where, "sink", format_number(*v.sink), "must be a finite number");
  }
  if (v.beta && !(std::isfinite(*v.beta) && *v.beta >= 0)) {
    refuse(where, "beta", format_number(*v.beta), "must be finite and >= 0");
  }
}

Json read_path_json(const ReadPath& path) {
  Json json = Json::object();
  if (path.top_k) json["top_k"] = *path.top_k;
  if (path.index_gate) json["index_gate"] = path.index_gate->spec;
  if (path.index_beta) json["index_beta"] = *path.index_beta;
  if (path.index_rho != 0) json["index_rho"] = path.index_rho;
  if (path.sliding_window > 0) json["sliding_window"] = path.sliding_window;
  if (path.sink) json["sink"] = *path.sink;
  if (path.beta) json["beta"] = *path.beta;
  if (path.raw_blocks) json["raw_blocks"] = true;
  return json;
}

}  // namespace phasesim::niah
