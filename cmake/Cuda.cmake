# The gpu engine is optional. PHASESIM_CUDA=AUTO (the default) builds its CUDA kernel when
# CMake finds a CUDA compiler and otherwise builds a stub that says "this build has no CUDA
# support"; ON requires CUDA; OFF never looks. Sets PHASESIM_HAVE_CUDA.
include(cmake/AutoOption.cmake)
phasesim_auto_option(PHASESIM_CUDA "Build the CUDA gpu engine")

set(PHASESIM_HAVE_CUDA OFF)
if(NOT PHASESIM_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # nvcc compiles host code with the C++ compiler the rest of phasesim uses.
    if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER)
      set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
    endif()
    # Hopper (sm_90) machine code plus compute_90 PTX that newer GPUs compile at load time.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90-real 90-virtual)
    endif()
    enable_language(CUDA)
    # CMake before 3.26 knows no C++20 dialect for nvcc (which has had one since CUDA 12).
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_EXTENSIONS OFF)
    find_package(CUDAToolkit REQUIRED)
    set(PHASESIM_HAVE_CUDA ON)
  elseif(PHASESIM_CUDA STREQUAL "ON")
    message(FATAL_ERROR "phasesim: PHASESIM_CUDA=ON but no CUDA compiler was found (put nvcc "
                        "on PATH or set CMAKE_CUDA_COMPILER, or configure with -DPHASESIM_CUDA=OFF)")
  endif()
endif()
if(PHASESIM_HAVE_CUDA)
  message(STATUS "phasesim: gpu engine built with CUDA ${CMAKE_CUDA_COMPILER_VERSION} "
                 "(architectures ${CMAKE_CUDA_ARCHITECTURES})")
elseif(PHASESIM_CUDA STREQUAL "OFF")
  message(STATUS "phasesim: gpu engine not built (PHASESIM_CUDA=OFF); --engine gpu will say so")
else()
  message(STATUS "phasesim: gpu engine not built (no CUDA compiler found); --engine gpu will say so")
endif()
