# Finds a Python 3 that can import matplotlib, for the demo's figures, the plot tests and
# the experiments. Sets PHASESIM_PLOT_PYTHON (empty when there is none).
# Debian's /usr/bin/python3 (with python3-matplotlib) comes first: a python3 earlier on
# PATH (pyenv, a virtualenv) often lacks matplotlib.
set(PHASESIM_PLOT_PYTHON "" CACHE FILEPATH "Python 3 interpreter with matplotlib")
if(NOT PHASESIM_PLOT_PYTHON)
  find_program(_phasesim_path_python python3)
  foreach(candidate /usr/bin/python3 ${_phasesim_path_python})
    if(EXISTS "${candidate}")
      execute_process(COMMAND "${candidate}" -c "import matplotlib, numpy"
                      RESULT_VARIABLE _phasesim_import OUTPUT_QUIET ERROR_QUIET)
      if(_phasesim_import EQUAL 0)
        set(PHASESIM_PLOT_PYTHON "${candidate}" CACHE FILEPATH
            "Python 3 interpreter with matplotlib" FORCE)
        break()
      endif()
    endif()
  endforeach()
endif()
if(PHASESIM_PLOT_PYTHON)
  message(STATUS "phasesim: plots with ${PHASESIM_PLOT_PYTHON}")
else()
  message(STATUS "phasesim: no Python 3 with matplotlib found; the demo will skip its figures")
endif()
