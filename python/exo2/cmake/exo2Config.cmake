# CMake package of exo2: `find_package(exo2 CONFIG REQUIRED)` with
# `exo2_DIR` set to the output of
#   python -c "import exo2; print(exo2.cmake_dir())"
# provides add_exo2_library() (AddExo2Library.cmake).
include("${CMAKE_CURRENT_LIST_DIR}/AddExo2Library.cmake")
set(exo2_FOUND TRUE)
