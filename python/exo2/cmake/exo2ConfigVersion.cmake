# Any version request is satisfied by the installed exo2 package.
set(PACKAGE_VERSION "0.1.0")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
