# arm64-toolchain.cmake: cross-compiles streamcard for arm64 (aarch64) with Debian's cross
# toolchain (crossbuild-essential-arm64) against the arm64 -dev packages of its libraries
# (dpkg --add-architecture arm64; contrib/arm64-check installs both). Its programs run
# under qemu-user through binfmt_misc (contrib/arm64-check registers qemu-aarch64), so a test
# runs an arm64 program, and that program others, as it would on an arm64 node.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# The arm64 packages' .pc files, never the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
