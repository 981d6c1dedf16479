# SPDX-License-Identifier: MIT
# find_package(gpumat) gives gpumat::gpumat, an INTERFACE target: the include
# directory and the libraries the file that defines GPUMAT_IMPLEMENTATION
# needs (dl, threads, libm), and -O2 for a build of no build type. Nothing
# else: CUDA is opened at run time.
include(CMakeFindDependencyMacro)
find_dependency(Threads)

# share/cmake/gpumat -> the prefix, so the installed tree can be moved
get_filename_component(_gpumat_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET gpumat::gpumat)
    add_library(gpumat::gpumat INTERFACE IMPORTED)
    set_target_properties(gpumat::gpumat PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${_gpumat_prefix}/include"
        INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m")
    # No build type compiles without -O, where the CPU path runs about 80
    # times slower: then, unless the flags hold an -O level, -O2 (as
    # gpumat's CMakeLists.txt does for add_subdirectory and FetchContent).
    if(NOT CMAKE_C_FLAGS MATCHES "(^| )-O" AND NOT CMAKE_CXX_FLAGS MATCHES "(^| )-O")
        set_property(TARGET gpumat::gpumat PROPERTY INTERFACE_COMPILE_OPTIONS "$<$<CONFIG:>:-O2>")
    endif()
endif()
unset(_gpumat_prefix)
