# MPI is optional. PHASESIM_MPI=AUTO (the default) builds the MPI job (core/job.hpp) when
# CMake finds MPI and otherwise a build in which every process runs alone; ON requires MPI;
# OFF never looks. Sets PHASESIM_HAVE_MPI, and PHASESIM_MPIEXEC (the launcher the tests use,
# empty when none was found).
include(cmake/AutoOption.cmake)
phasesim_auto_option(PHASESIM_MPI "Build with MPI")

set(PHASESIM_HAVE_MPI OFF)
set(PHASESIM_MPIEXEC "")
if(NOT PHASESIM_MPI STREQUAL "OFF")
  set(MPI_CXX_SKIP_MPICXX ON)  # phasesim calls the C API; skip the deprecated C++ bindings
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(PHASESIM_HAVE_MPI ON)
    if(MPIEXEC_EXECUTABLE)
      set(PHASESIM_MPIEXEC ${MPIEXEC_EXECUTABLE})
    endif()
  elseif(PHASESIM_MPI STREQUAL "ON")
    message(FATAL_ERROR "phasesim: PHASESIM_MPI=ON but MPI was not found. Install the Debian "
                        "packages 'libopenmpi-dev' and 'openmpi-bin' (scripts/install-deps.sh), "
                        "or configure with -DPHASESIM_MPI=OFF")
  endif()
endif()
if(PHASESIM_HAVE_MPI)
  message(STATUS "phasesim: MPI ${MPI_CXX_VERSION} (runs under ${PHASESIM_MPIEXEC})")
elseif(PHASESIM_MPI STREQUAL "OFF")
  message(STATUS "phasesim: built without MPI (PHASESIM_MPI=OFF); every process runs alone")
else()
  message(STATUS "phasesim: built without MPI (not found); every process runs alone")
endif()
