#pragma once
// Per-trial code is written once and compiled for both CPU and GPU: under nvcc
// PHASESIM_HD marks a function __host__ __device__, elsewhere it expands to nothing.
#if defined(__CUDACC__)
#define PHASESIM_HD __host__ __device__
#else
#define PHASESIM_HD
#endif
