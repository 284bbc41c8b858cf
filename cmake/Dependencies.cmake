# Finds every dependency and fails with one line naming the Debian package that
# provides it, instead of a wall of compiler errors later.

macro(phasesim_missing what package)
  message(FATAL_ERROR
    "phasesim: ${what} not found. Install the Debian package '${package}' "
    "(or run scripts/install-deps.sh, which installs everything phasesim needs).")
endmacro()

find_package(Eigen3 3.3 QUIET NO_MODULE)
if(NOT TARGET Eigen3::Eigen)
  phasesim_missing("Eigen 3" libeigen3-dev)
endif()

find_package(Boost 1.71 QUIET)
if(NOT Boost_FOUND)
  phasesim_missing("Boost (Boost.Math headers)" libboost-math-dev)
endif()
find_path(PHASESIM_BOOST_MATH_DIR boost/math/quadrature/gauss_kronrod.hpp
          HINTS ${Boost_INCLUDE_DIRS})
if(NOT PHASESIM_BOOST_MATH_DIR)
  phasesim_missing("Boost.Math" libboost-math-dev)
endif()

find_package(OpenMP QUIET COMPONENTS CXX)
if(NOT OpenMP_CXX_FOUND)
  phasesim_missing("OpenMP for C++" libgomp1)
endif()

find_package(CLI11 QUIET CONFIG)
if(NOT TARGET CLI11::CLI11)
  phasesim_missing("CLI11" libcli11-dev)
endif()

find_package(nlohmann_json 3.2 QUIET)
if(NOT TARGET nlohmann_json::nlohmann_json)
  phasesim_missing("nlohmann-json" nlohmann-json3-dev)
endif()

find_package(tomlplusplus QUIET)
if(NOT TARGET tomlplusplus::tomlplusplus)
  phasesim_missing("toml++" libtomlplusplus-dev)
endif()

find_path(RANDOM123_INCLUDE_DIR Random123/philox.h)
if(NOT RANDOM123_INCLUDE_DIR)
  phasesim_missing("Random123" librandom123-dev)
endif()
add_library(Random123 INTERFACE)
target_include_directories(Random123 SYSTEM INTERFACE ${RANDOM123_INCLUDE_DIR})

# Google Highway: portable SIMD with runtime dispatch, for the block generator of normals.
find_package(hwy 1.0 QUIET)
if(NOT TARGET hwy::hwy)
  phasesim_missing("Google Highway" libhwy-dev)
endif()

if(PHASESIM_BUILD_TESTS)
  find_package(doctest QUIET)
  if(NOT TARGET doctest::doctest)
    phasesim_missing("doctest" doctest-dev)
  endif()
endif()

if(PHASESIM_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  if(NOT TARGET benchmark::benchmark)
    phasesim_missing("Google Benchmark" libbenchmark-dev)
  endif()
endif()
