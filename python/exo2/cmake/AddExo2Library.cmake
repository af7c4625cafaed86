# add_exo2_library(<target> SOURCES <py files>... [PYTHONPATH <dir>]
#                  [ARCH <cpu>])
#
# Runs exo2c on the Python sources and builds the generated C as a static
# library <target> (docs/compiling-and-calling.md, "CMake", in the exo2
# repository). The generated header <target>.h is on the target's public
# include path. exo2c's depfile makes the library rebuild when any Python
# module the sources import changes.
#
# Target ISA: by default the library is compiled with the flags its
# instructions need (exo2c writes them to <target>.cflags, e.g. -mavx2 -mfma
# for AVX2 code), passed to GCC / Clang as the response file
# @<target>.cflags. ARCH <cpu> (or the cache variable EXO2_ARCH) compiles
# with -march=<cpu> instead, e.g. native or x86-64-v3.
#
# Optimisation: when no build type is set (CMAKE_BUILD_TYPE empty with a
# single-configuration generator), the library is compiled with -O3.
#
# par loops run on OpenMP threads: when CMake finds OpenMP, the library
# links it (PUBLIC, so executables using it do too).
include_guard(GLOBAL)

# The Python interpreter that runs exo2c: EXO2_PYTHON if set, else the
# interpreter CMake finds.
if(NOT EXO2_PYTHON)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  set(EXO2_PYTHON "${Python3_EXECUTABLE}")
endif()

set(EXO2_ARCH "" CACHE STRING
    "-march= for exo2 libraries (empty: the flags of the instructions used)")

function(add_exo2_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "PYTHONPATH;ARCH" "SOURCES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "add_exo2_library(${target}): SOURCES is required")
  endif()
  set(sources "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR
                           "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND sources "${abs}")
  endforeach()
  if(NOT ARG_PYTHONPATH)
    list(GET sources 0 first)
    get_filename_component(ARG_PYTHONPATH "${first}" DIRECTORY)
  endif()
  if(NOT ARG_ARCH)
    set(ARG_ARCH "${EXO2_ARCH}")
  endif()

  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  set(c_file "${outdir}/${target}.c")
  set(h_file "${outdir}/${target}.h")
  set(flags_file "${outdir}/${target}.cflags")
  add_custom_command(
    OUTPUT "${c_file}" "${h_file}" "${flags_file}"
    COMMAND "${EXO2_PYTHON}" -m exo2.main -o "${outdir}" -s "${target}"
            -p "${ARG_PYTHONPATH}" ${sources}
    DEPENDS ${sources}
    DEPFILE "${outdir}/${target}.d"
    COMMENT "exo2c: generating ${target}.c and ${target}.h"
    VERBATIM)
  add_library(${target} STATIC "${c_file}")
  target_include_directories(${target} PUBLIC "${outdir}")
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_EXTENSIONS ON)
  if(ARG_ARCH)
    target_compile_options(${target} PRIVATE "-march=${ARG_ARCH}")
  else()
    target_compile_options(${target} PRIVATE "@${flags_file}")
    set_source_files_properties("${c_file}" PROPERTIES OBJECT_DEPENDS
                                                       "${flags_file}")
  endif()
  find_package(OpenMP COMPONENTS C QUIET)
  if(OpenMP_C_FOUND)
    target_link_libraries(${target} PUBLIC OpenMP::OpenMP_C)
  endif()
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(NOT CMAKE_BUILD_TYPE AND NOT multi_config)
    target_compile_options(${target} PRIVATE -O3)
  endif()
endfunction()
