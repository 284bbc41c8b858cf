# The browser build (scripts/build-web.sh runs CMake under emcmake): the same layers as the
# CLI, compiled to WebAssembly by emscripten, with no OpenMP, MPI or CUDA, and Highway's one
# static target (emscripten's baseline, so HWY_DYNAMIC_DISPATCH is a direct call and needs no
# libhwy). The header-only libraries come from Debian's /usr/include, each through a link to
# its own folder: -I/usr/include would put glibc's headers before emscripten's libc.

macro(phasesim_web_missing what package)
  message(FATAL_ERROR "phasesim web build: ${what} not found in /usr/include. Install the "
                      "Debian package '${package}' (scripts/install-deps.sh installs it).")
endmacro()

set(PHASESIM_WEB_INCLUDE ${PROJECT_BINARY_DIR}/web-include)
file(MAKE_DIRECTORY ${PHASESIM_WEB_INCLUDE})
foreach(entry boost:libboost-math-dev nlohmann:nlohmann-json3-dev hwy:libhwy-dev toml++:libtomlplusplus-dev CLI:libcli11-dev)
  string(REPLACE ":" ";" pair ${entry})
  list(GET pair 0 folder)
  list(GET pair 1 package)
  if(NOT IS_DIRECTORY /usr/include/${folder})
    phasesim_web_missing(${folder} ${package})
  endif()
  file(CREATE_LINK /usr/include/${folder} ${PHASESIM_WEB_INCLUDE}/${folder} SYMBOLIC)
endforeach()
# Random123 stops on a processor it was not tested on; its portable C++ code (what Philox
# runs here: 32-bit multiplies) is all wasm needs. A copy of the tree whose one feature file
# lets __wasm__ through.
if(NOT EXISTS /usr/include/Random123/features/gccfeatures.h)
  phasesim_web_missing(Random123 librandom123-dev)
endif()
file(GLOB_RECURSE random123_files RELATIVE /usr/include /usr/include/Random123/*)
list(REMOVE_ITEM random123_files Random123/features/gccfeatures.h)
foreach(file IN LISTS random123_files)
  get_filename_component(folder ${PHASESIM_WEB_INCLUDE}/${file} DIRECTORY)
  file(MAKE_DIRECTORY ${folder})
  file(CREATE_LINK /usr/include/${file} ${PHASESIM_WEB_INCLUDE}/${file} SYMBOLIC)
endforeach()
file(READ /usr/include/Random123/features/gccfeatures.h features)
string(REPLACE "!defined(__x86_64__) &&" "!defined(__wasm__) && !defined(__x86_64__) &&"
       features "${features}")
# Written only when it changes: a new date on it at every configure (scripts/build-web.sh
# configures every time) would rebuild everything that includes Random123.
file(WRITE ${PROJECT_BINARY_DIR}/gccfeatures.h "${features}")
configure_file(${PROJECT_BINARY_DIR}/gccfeatures.h
               ${PHASESIM_WEB_INCLUDE}/Random123/features/gccfeatures.h COPYONLY)

if(NOT IS_DIRECTORY /usr/include/eigen3)
  phasesim_web_missing(Eigen libeigen3-dev)
endif()

# The targets the layers link, under the names cmake/Dependencies.cmake gives them natively.
foreach(name Boost::headers nlohmann_json::nlohmann_json Random123 hwy::hwy
             tomlplusplus::tomlplusplus CLI11::CLI11)
  add_library(${name} INTERFACE IMPORTED)
  target_include_directories(${name} INTERFACE ${PHASESIM_WEB_INCLUDE})
endforeach()
add_library(Eigen3::Eigen INTERFACE IMPORTED)
target_include_directories(Eigen3::Eigen INTERFACE /usr/include/eigen3)
# One thread: omp.h's queries answer as OpenMP does outside a parallel region, and the
# pragmas of the parallel policy are ignored (a loop runs its items in order).
add_library(OpenMP::OpenMP_CXX INTERFACE IMPORTED)
target_include_directories(OpenMP::OpenMP_CXX INTERFACE ${PROJECT_SOURCE_DIR}/web/wasm/omp)
target_compile_options(OpenMP::OpenMP_CXX INTERFACE -Wno-unknown-pragmas)

# C++ exceptions are how every layer reports bad input: emscripten must catch them. As
# WebAssembly exceptions (Chromium 95+, Node 17+): emscripten's JavaScript emulation
# (-fexceptions) sends every call that may unwind through a destructor out to JavaScript.
add_compile_options(-fwasm-exceptions)
add_link_options(-fwasm-exceptions)
