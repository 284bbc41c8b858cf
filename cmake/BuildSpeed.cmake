# ccache when it is installed (Debian `ccache`, scripts/install-deps.sh --tests), for C++ and
# CUDA, unless the user chose a launcher (-DCMAKE_CXX_COMPILER_LAUNCHER= , empty, turns it off).
# A rebuilt build/ or build-asan/ (a fresh clone, `git clean`, a flag tried and undone) then
# compiles only the files whose preprocessed text changed.
#
# No precompiled headers: measured on this project (issue 25), precompiling CLI11,
# nlohmann-json, Eigen, Boost.Math and doctest saved little per file (most of the time goes
# into the code each file instantiates, not into parsing the headers), cost the header's own
# compilation per target, and made GCC 12 report false -Wstringop-overflow errors (GCC bug
# 105651's family) in four files under -Werror. The unity builds below share both the
# parsing and the instantiations among the files of a batch.
#
# Unity builds: each target compiles its sources in batches of 8 as one file. CLI11 2.1
# (header-only) costs every file that includes it 8 s at -O3 (3.5 s to parse, the rest for
# the validator objects it defines in each file), doctest and pybind11 the same way, and 27
# CLI files include it. Measured on a fresh build/ (2 cores, no ccache): 9 min 1 s of wall
# time and 1005 s of compiler time summed over 136 files before, 3 min 57 s and 405 s over
# 34 files after. A file that needs its own translation unit (Highway's foreach_target
# re-includes it) sets SKIP_UNITY_BUILD_INCLUSION. -DPHASESIM_UNITY_BUILD=OFF compiles file
# by file, which rebuilds less after editing one source.
option(PHASESIM_UNITY_BUILD "Compile each target's sources in batches (a faster fresh build)" ON)
if(PHASESIM_UNITY_BUILD)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
endif()

if(NOT EMSCRIPTEN)  # ccache is for the native compilers; emcc is a script around clang
  find_program(PHASESIM_CCACHE ccache)
endif()
if(PHASESIM_CCACHE)
  if(NOT DEFINED CMAKE_CXX_COMPILER_LAUNCHER)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${PHASESIM_CCACHE})
  endif()
  if(NOT DEFINED CMAKE_CUDA_COMPILER_LAUNCHER)
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${PHASESIM_CCACHE})
  endif()
endif()
if(CMAKE_CXX_COMPILER_LAUNCHER)
  list(JOIN CMAKE_CXX_COMPILER_LAUNCHER " " _phasesim_launcher_text)
  message(STATUS "phasesim: compiler launcher ${_phasesim_launcher_text}")
endif()
