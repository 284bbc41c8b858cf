# An optional part of phasesim chosen at configure time: AUTO (the default: build it when
# its dependency is found), ON (fail without it) or OFF (never look for it).
function(phasesim_auto_option name help)
  set(${name} AUTO CACHE STRING "${help}: AUTO (when found), ON or OFF")
  set_property(CACHE ${name} PROPERTY STRINGS AUTO ON OFF)
  if(NOT ${name} MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "phasesim: invalid ${name}=${${name}} (use AUTO, ON or OFF)")
  endif()
endfunction()
