# cmake/toolchain-aarch64.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

# Toolchain prefix: distro cross compiler by default; override with -DAARCH64_TOOLCHAIN_BIN=<dir>
set(AARCH64_TOOLCHAIN_BIN "" CACHE PATH "bin/ directory of an Arm GNU toolchain (optional)")
if(AARCH64_TOOLCHAIN_BIN)
  set(_prefix "${AARCH64_TOOLCHAIN_BIN}/aarch64-none-linux-gnu-")
else()
  set(_prefix "aarch64-linux-gnu-")
endif()
set(CMAKE_C_COMPILER   "${_prefix}gcc")
set(CMAKE_CXX_COMPILER "${_prefix}g++")

set(AARCH64_SYSROOT "" CACHE PATH "Target sysroot (optional)")
if(AARCH64_SYSROOT)
  set(CMAKE_SYSROOT "${AARCH64_SYSROOT}")
endif()

# Programs from the host, libraries/headers/packages only from the target.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Lets ctest run target binaries on the host.
find_program(QEMU_AARCH64 qemu-aarch64-static qemu-aarch64)
if(QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${QEMU_AARCH64};-L;/usr/aarch64-linux-gnu")
endif()
