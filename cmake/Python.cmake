# pybind11 (Debian pybind11-dev) for the Python module, optional: without it the build and
# every other test pass, and the Python tests skip with a message (tests/python).
# The module is for the system Python (/usr/bin/python3, which has NumPy from Debian), not a
# pyenv one that may come first on PATH.
if(NOT DEFINED PYTHON_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(PYTHON_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python the module is built for")
endif()
find_package(pybind11 2.6 CONFIG QUIET)
if(PHASESIM_SANITIZE)
  # An AddressSanitizer module cannot load into the uninstrumented system Python (the ASan
  # runtime must come first): the sanitizer build leaves the module out, its tests skip.
  set(PHASESIM_HAVE_PYBIND11 OFF)
  message(STATUS "phasesim: Python module OFF in the sanitizer build")
elseif(pybind11_FOUND)
  set(PHASESIM_HAVE_PYBIND11 ON)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  message(STATUS "phasesim: Python module ON (pybind11 ${pybind11_VERSION}, ${PYTHON_EXECUTABLE})")
else()
  set(PHASESIM_HAVE_PYBIND11 OFF)
  message(STATUS "phasesim: Python module OFF (install pybind11-dev to build it)")
endif()
