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
message(STATUS "phasesim: contracts ${PHASESIM_CONTRACTS} (build type ${CMAKE_BUILD_TYPE})")
