# Finds every dependency and, when one is missing, stops with the Debian package that provides it.
# The package names are those of scripts/debian-packages.txt, which scripts/setup installs.

find_package(PkgConfig)
if(NOT PkgConfig_FOUND)
  message(FATAL_ERROR "pkg-config not found: install it with `apt-get install pkg-config` (or run scripts/setup).")
endif()

macro(bxisim_require_pkgconfig target module package)
  pkg_check_modules(${target} IMPORTED_TARGET ${module})
  if(NOT ${target}_FOUND)
    message(FATAL_ERROR "bxisim needs ${module} (pkg-config module `${module}`): "
                        "install it with `apt-get install ${package}` (or run scripts/setup).")
  endif()
endmacro()

macro(bxisim_require_package name package)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "bxisim needs ${name}: install it with `apt-get install ${package}` (or run scripts/setup).")
  endif()
endmacro()

bxisim_require_pkgconfig(SimGrid simgrid libsimgrid-dev)
if(SimGrid_VERSION VERSION_LESS 3.32)
  message(FATAL_ERROR "bxisim needs SimGrid 3.32 or later, found ${SimGrid_VERSION}: install Debian's libsimgrid-dev.")
endif()
bxisim_require_pkgconfig(SystemC systemc libsystemc-dev)
# The simulator's allocator (runtime/CMakeLists.txt says why); the sanitizers bring their own.
if(NOT BXISIM_SANITIZE AND NOT BXISIM_FUZZ)
  bxisim_require_pkgconfig(TCMalloc libtcmalloc_minimal libgoogle-perftools-dev)
endif()
bxisim_require_pkgconfig(TLM tlm libsystemc-dev)
bxisim_require_package(Boost libboost-dev)
bxisim_require_package(GTest libgtest-dev)
bxisim_require_package(CLI11 libcli11-dev)
bxisim_require_package(tomlplusplus libtomlplusplus-dev)
bxisim_require_package(nlohmann_json nlohmann-json3-dev)
bxisim_require_package(fmt libfmt-dev)

find_program(BXISIM_PATCHELF patchelf)
if(NOT BXISIM_PATCHELF)
  message(FATAL_ERROR "bxisim needs patchelf: install it with `apt-get install patchelf` (or run scripts/setup).")
endif()
# bxif90 and the Fortran module mpi (mpi.mod) are built with gfortran.
find_program(BXISIM_GFORTRAN gfortran)
if(NOT BXISIM_GFORTRAN)
  message(FATAL_ERROR "bxisim needs gfortran (bxif90, the Fortran module mpi): install it with `apt-get install gfortran` (or run scripts/setup).")
endif()
