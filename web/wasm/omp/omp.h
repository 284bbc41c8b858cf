#pragma once
// OpenMP's three queries for the browser build (cmake/Web.cmake), which runs on one thread:
// the values OpenMP itself returns outside any parallel region on a one-core machine.
inline int omp_get_max_threads() { return 1; }
inline int omp_get_thread_num() { return 0; }
inline int omp_get_level() { return 0; }
