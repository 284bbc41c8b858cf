# Internal contracts (include/phasesim/core/contract.hpp: PHASESIM_EXPECT, PHASESIM_ASSERT,
# PHASESIM_ENSURE). AUTO, the default, turns them on in Debug builds and in the sanitizer build
# (PHASESIM_SANITIZE, which scripts/run-sanitizers.sh configures as Debug), and off otherwise:
# in Release, which both README commands build, a contract compiles to nothing. ON and OFF
# force them either way. Every target gets PHASESIM_CONTRACTS=0 or 1, the CUDA kernel too.
set(PHASESIM_CONTRACTS AUTO CACHE STRING
    "Internal contracts: AUTO (on in Debug and sanitizer builds), ON or OFF")
set_property(CACHE PHASESIM_CONTRACTS PROPERTY STRINGS AUTO ON OFF)
if(PHASESIM_CONTRACTS STREQUAL "AUTO")
  # A generator expression, so that a multi-config generator decides per configuration.
  set(_phasesim_contracts "$<OR:$<CONFIG:Debug>,$<BOOL:${PHASESIM_SANITIZE}>>")
elseif(PHASESIM_CONTRACTS MATCHES "^(ON|OFF)$")
  set(_phasesim_contracts "$<BOOL:${PHASESIM_CONTRACTS}>")
else()
  message(FATAL_ERROR
          "phasesim: invalid PHASESIM_CONTRACTS=${PHASESIM_CONTRACTS} (use AUTO, ON or OFF)")
endif()
add_compile_definitions(PHASESIM_CONTRACTS=${_phasesim_contracts})
if(NOT PHASESIM_CONTRACTS STREQUAL "AUTO")
  message(STATUS "phasesim: contracts ${PHASESIM_CONTRACTS}")
elseif(CMAKE_CONFIGURATION_TYPES AND NOT PHASESIM_SANITIZE)
  message(STATUS "phasesim: contracts AUTO (on in the Debug configuration)")
elseif(CMAKE_BUILD_TYPE STREQUAL "Debug" OR PHASESIM_SANITIZE)
  message(STATUS "phasesim: contracts ON (AUTO: a Debug or sanitizer build)")
else()
  message(STATUS "phasesim: contracts OFF (AUTO: build type ${CMAKE_BUILD_TYPE})")
endif()
