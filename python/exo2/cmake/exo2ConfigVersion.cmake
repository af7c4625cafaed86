# The version of the installed exo2 package: __version__ of its
# __init__.py, the one place it is written. A request for a version newer
# than this one is not satisfied.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../__init__.py" _exo2_version_line
     REGEX "^__version__ = ")
string(REGEX REPLACE "^__version__ = \"([^\"]+)\".*" "\\1" PACKAGE_VERSION
                     "${_exo2_version_line}")
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
