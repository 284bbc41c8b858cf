#pragma once
// Internal contracts: what a correct program never breaks, stated where it matters.
//   PHASESIM_EXPECT(cond)  a precondition: what a function requires of its caller;
//   PHASESIM_ASSERT(cond)  an invariant inside a function;
//   PHASESIM_ENSURE(cond)  a postcondition: what a function promises its caller.
// User input is not a contract: it is checked always, with InputError and its one-line grammar
// (error.hpp). Contracts are on when PHASESIM_CONTRACTS is 1 (the CMake option of the same
// name, cmake/Contracts.cmake: on in Debug and sanitizer builds, off in Release). On, a broken
// contract throws ContractError on the host, and on a CUDA device prints what broke and traps.
// Off, a contract compiles to nothing: its condition is type-checked but never evaluated, so
// it may cost what it likes in a debug build and nothing in a release one.
#include <stdexcept>
#include <string>

#include "phasesim/core/host_device.hpp"

#if defined(__CUDA_ARCH__)
#include <cstdio>
#endif

#ifndef PHASESIM_CONTRACTS
#define PHASESIM_CONTRACTS 0
#endif

namespace phasesim {

enum class ContractKind { precondition, assertion, postcondition };

/// A broken contract: a bug in phasesim, never a user's mistake. what() is one line,
/// "precondition failed: k < n (sim/engines/fast/streaming_rms.cpp:83)".
class ContractError : public std::logic_error {
 public:
  ContractError(ContractKind kind, const char* condition, const char* file, int line);
  ContractKind kind() const { return kind_; }
  const char* condition() const { return condition_; }
  const char* file() const { return file_; }
  int line() const { return line_; }

 private:
  ContractKind kind_;
  const char* condition_;
  const char* file_;
  int line_;
};

/// "precondition", "assertion" or "postcondition".
const char* contract_kind_name(ContractKind kind);

/// Throws ContractError: out of line, so that a contract costs its call sites one branch.
[[noreturn]] void contract_failed(ContractKind kind, const char* condition, const char* file,
                                  int line);

}  // namespace phasesim

#if defined(__CUDA_ARCH__)
// A kernel cannot throw: say what broke, then stop the kernel (the host sees a launch error).
#define PHASESIM_CONTRACT_FAILED_(KIND, CONDITION)                          \
  do {                                                                      \
    printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #KIND, CONDITION); \
    __trap();                                                               \
  } while (0)
#else
#define PHASESIM_CONTRACT_FAILED_(KIND, CONDITION) \
  ::phasesim::contract_failed(::phasesim::ContractKind::KIND, CONDITION, __FILE__, __LINE__)
#endif

#if PHASESIM_CONTRACTS
#define PHASESIM_CONTRACT_(KIND, COND)                   \
  do {                                                   \
    if (!(COND)) PHASESIM_CONTRACT_FAILED_(KIND, #COND); \
  } while (0)
#else
// `false &&` keeps the condition compiled (its names used, its types checked), never run.
#define PHASESIM_CONTRACT_(KIND, COND) \
  do {                                 \
    if (false && (COND)) {             \
    }                                  \
  } while (0)
#endif

#define PHASESIM_EXPECT(COND) PHASESIM_CONTRACT_(precondition, COND)
#define PHASESIM_ASSERT(COND) PHASESIM_CONTRACT_(assertion, COND)
#define PHASESIM_ENSURE(COND) PHASESIM_CONTRACT_(postcondition, COND)
