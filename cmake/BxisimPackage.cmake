# What `cmake --install` puts in a prefix besides the executables and headers declared next to them:
# the OpenMPI build of the ranks (from the cache), the docs and the drawing scripts, portals4.h, a
# CMake package config (find_package(bxisim)) and a pkg-config file (pkg-config --cflags bxisim),
# so that other projects build against bxisim's headers and find bxicc/bxicxx.
include(CMakePackageConfigHelpers)

install(FILES ${PROJECT_SOURCE_DIR}/portals/include/portals4.h DESTINATION include)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/bxisim)
if(BXISIM_HAVE_OPENMPI)
  # bxisim looks for it in <prefix>/lib/bxisim/openmpi first (runtime/launch/OpenMpi.cpp); OPAL_PREFIX
  # points OpenMPI at its own files there.
  install(DIRECTORY ${BXISIM_OPENMPI_PREFIX}/ DESTINATION lib/bxisim/openmpi USE_SOURCE_PERMISSIONS)
endif()

set(BXISIM_PACKAGE_DIR ${CMAKE_BINARY_DIR}/package)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/bxisimConfig.cmake.in ${BXISIM_PACKAGE_DIR}/bxisimConfig.cmake
                              INSTALL_DESTINATION lib/cmake/bxisim PATH_VARS CMAKE_INSTALL_PREFIX)
write_basic_package_version_file(${BXISIM_PACKAGE_DIR}/bxisimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${BXISIM_PACKAGE_DIR}/bxisimConfig.cmake ${BXISIM_PACKAGE_DIR}/bxisimConfigVersion.cmake
        DESTINATION lib/cmake/bxisim)
configure_file(${PROJECT_SOURCE_DIR}/cmake/bxisim.pc.in ${BXISIM_PACKAGE_DIR}/bxisim.pc @ONLY)
install(FILES ${BXISIM_PACKAGE_DIR}/bxisim.pc DESTINATION lib/pkgconfig)
