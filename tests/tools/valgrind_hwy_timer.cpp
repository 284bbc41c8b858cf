// Preloaded under valgrind by scripts/run-sanitizers.sh. libhwy's initializer measures its
// benchmark timer with rdtscp, which valgrind 3.19 refuses ("unrecognised instruction") on a
// CPU that does not advertise it, as some virtual machines do not: this stands in for that
// one function. phasesim never calls it (only Highway's nanobenchmark does).
#include <cstdint>

namespace hwy::platform {

std::uint64_t TimerResolution() { return 1; }

}  // namespace hwy::platform
