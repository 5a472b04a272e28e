# deb.cmake: the initial cache of the build that makes the Debian package. It installs
# under /usr, the plugins in Debian's Slurm plugin directory, and leaves out the tests:
#   cmake -C contrib/package/deb.cmake -S . -B build-deb
#   cmake --build build-deb -j"$(nproc)"
#   cd build-deb && cpack -G DEB        # -> streamcard_<version>_amd64.deb
set(CMAKE_INSTALL_PREFIX /usr CACHE PATH "")
set(STREAMCARD_SLURM_PLUGINDIR lib/x86_64-linux-gnu/slurm-wlm CACHE STRING "")
set(STREAMCARD_BUILD_TESTS OFF CACHE BOOL "")
set(STREAMCARD_MARKER_SHARED OFF CACHE BOOL "") # its own package's, not this one's
set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "")
