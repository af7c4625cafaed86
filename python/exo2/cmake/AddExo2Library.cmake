# add_exo2_library(<target> SOURCES <py files>... [PYTHONPATH <dir>])
#
# Runs exo2c on the Python sources (procedure-and-codegen.md §3) and builds
# the generated C as a static library <target>. The generated header
# <target>.h is on the target's public include path. exo2c's depfile makes
# the library rebuild when any Python module the sources import changes.
include_guard(GLOBAL)

# The Python interpreter that runs exo2c: EXO2_PYTHON if set, else the
# interpreter CMake finds.
if(NOT EXO2_PYTHON)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  set(EXO2_PYTHON "${Python3_EXECUTABLE}")
endif()

function(add_exo2_library target)
  cmake_parse_arguments(PARSE_ARGV 1 EXO2 "" "PYTHONPATH" "SOURCES")
  if(NOT EXO2_SOURCES)
    message(FATAL_ERROR "add_exo2_library(${target}): SOURCES is required")
  endif()
  set(sources "")
  foreach(src IN LISTS EXO2_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR
                           "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND sources "${abs}")
  endforeach()
  if(NOT EXO2_PYTHONPATH)
    list(GET sources 0 first)
    get_filename_component(EXO2_PYTHONPATH "${first}" DIRECTORY)
  endif()

  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  set(c_file "${outdir}/${target}.c")
  set(h_file "${outdir}/${target}.h")
  add_custom_command(
    OUTPUT "${c_file}" "${h_file}"
    COMMAND "${EXO2_PYTHON}" -m exo2.main -o "${outdir}" -s "${target}"
            -p "${EXO2_PYTHONPATH}" ${sources}
    DEPENDS ${sources}
    DEPFILE "${outdir}/${target}.d"
    COMMENT "exo2c: generating ${target}.c and ${target}.h"
    VERBATIM)
  add_library(${target} STATIC "${c_file}")
  target_include_directories(${target} PUBLIC "${outdir}")
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_EXTENSIONS ON)
endfunction()
