# The sanitizer build (scripts/run-sanitizers.sh builds it into build-asan with clang):
# PHASESIM_SANITIZE=ON compiles and links everything with AddressSanitizer and
# UndefinedBehaviorSanitizer, stopping at the first report, at -O1 with frame pointers and
# line tables so that reports have readable stacks (run-sanitizers.sh drops the Debug type's
# full -g). With clang's libFuzzer found as well (PHASESIM_FUZZ=AUTO, the default),
# everything also gets libFuzzer's coverage instrumentation and fuzz/ builds the fuzz
# targets. Sets PHASESIM_HAVE_FUZZER.
option(PHASESIM_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
set(PHASESIM_FUZZ AUTO CACHE STRING
    "Build the libFuzzer targets in a sanitizer build: AUTO (when libFuzzer is found), ON or OFF")
set_property(CACHE PHASESIM_FUZZ PROPERTY STRINGS AUTO ON OFF)
if(NOT PHASESIM_FUZZ MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "phasesim: invalid PHASESIM_FUZZ=${PHASESIM_FUZZ} (use AUTO, ON or OFF)")
endif()

set(PHASESIM_HAVE_FUZZER OFF)
if(PHASESIM_SANITIZE)
  set(sanitizers -fsanitize=address,undefined -fno-sanitize-recover=all)
  # Line tables are all a report's stack needs, and build much faster than full -g.
  add_compile_options(${sanitizers} -fno-omit-frame-pointer -O1 -gline-tables-only)
  add_link_options(${sanitizers})
  if(NOT PHASESIM_FUZZ STREQUAL "OFF")
    include(CheckCXXSourceCompiles)
    set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
    set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
    check_cxx_source_compiles(
      "#include <cstddef>
       #include <cstdint>
       extern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }"
      PHASESIM_LIBFUZZER_WORKS)
    unset(CMAKE_REQUIRED_FLAGS)
    unset(CMAKE_REQUIRED_LINK_OPTIONS)
    if(PHASESIM_LIBFUZZER_WORKS)
      # Coverage feedback from the libraries the targets call, not only the targets.
      add_compile_options(-fsanitize=fuzzer-no-link)
      set(PHASESIM_HAVE_FUZZER ON)
    elseif(PHASESIM_FUZZ STREQUAL "ON")
      message(FATAL_ERROR "phasesim: PHASESIM_FUZZ=ON but this compiler has no libFuzzer "
                          "(use clang with the Debian package libclang-rt-14-dev)")
    endif()
  endif()
elseif(PHASESIM_FUZZ STREQUAL "ON")
  message(FATAL_ERROR "phasesim: PHASESIM_FUZZ=ON needs PHASESIM_SANITIZE=ON (fuzzers run "
                      "under the sanitizers)")
endif()
message(STATUS "phasesim: sanitizers ${PHASESIM_SANITIZE}, fuzz targets ${PHASESIM_HAVE_FUZZER}")
