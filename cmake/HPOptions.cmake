# Build-speed and feature options shared by every hp target.

find_program(HP_CCACHE ccache)
if(HP_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${HP_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${HP_CCACHE})
endif()

# CUDA is optional: later parts of hp (GPU runtime wrappers) build only when the
# toolkit is present. Nothing in the CPU build depends on it.
set(HP_CUDA_ROOT "/usr/local/cuda" CACHE PATH "CUDA toolkit root")
if(EXISTS "${HP_CUDA_ROOT}/include/cuda.h")
  set(HP_HAVE_CUDA ON)
else()
  set(HP_HAVE_CUDA OFF)
endif()
message(STATUS "hp: CUDA toolkit ${HP_HAVE_CUDA} (${HP_CUDA_ROOT})")
