# ccache when it is installed (Debian `ccache`, scripts/install-deps.sh --tests), for C++ and
# CUDA, unless the user chose a launcher (-DCMAKE_CXX_COMPILER_LAUNCHER= , empty, turns it off).
# A rebuilt build/ or build-asan/ (a fresh clone, `git clean`, a flag tried and undone) then
# compiles only the files whose preprocessed text changed.
#
# No precompiled headers: measured on this project (issue 25), precompiling CLI11,
# nlohmann-json, Eigen, Boost.Math and doctest saved nothing per file (the time goes into
# optimizing the code each file instantiates, not into parsing the headers), cost the
# header's own compilation per target, and made GCC 12 report false -Wstringop-overflow
# errors (GCC bug 105651's family) in four files under -Werror.
find_program(PHASESIM_CCACHE ccache)
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
