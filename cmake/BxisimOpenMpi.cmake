# The OpenMPI that `bxisim run` loads once per rank: built by mpi_patches/build into a cache folder
# outside the repository, keyed by the hash of its inputs. This finds that folder (without building),
# and re-runs CMake when an input changes. -DBXISIM_OPENMPI_PREFIX=<folder> chooses another build.
if(NOT DEFINED BXISIM_OPENMPI_PREFIX)
  execute_process(COMMAND ${PROJECT_SOURCE_DIR}/mpi_patches/build --print-prefix
                  OUTPUT_VARIABLE BXISIM_OPENMPI_PREFIX OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "mpi_patches/build --print-prefix failed")
  endif()
endif()
file(GLOB patches ${PROJECT_SOURCE_DIR}/mpi_patches/*.patch)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/mpi_patches/build
  ${PROJECT_SOURCE_DIR}/mpi_patches/series ${PROJECT_SOURCE_DIR}/mpi_patches/configure-options
  ${PROJECT_SOURCE_DIR}/portals/include/portals4.h ${patches})

option(BXISIM_REQUIRE_OPENMPI "Fail when the OpenMPI build is missing (scripts/setup builds it first)" OFF)
if(EXISTS ${BXISIM_OPENMPI_PREFIX}/complete)
  set(BXISIM_HAVE_OPENMPI ON)
  message(STATUS "OpenMPI for the ranks: ${BXISIM_OPENMPI_PREFIX}")
elseif(BXISIM_REQUIRE_OPENMPI)
  message(FATAL_ERROR "No OpenMPI build at ${BXISIM_OPENMPI_PREFIX}: run mpi_patches/build (6 to 40 minutes)")
else()
  set(BXISIM_HAVE_OPENMPI OFF)
  message(WARNING "No OpenMPI build at ${BXISIM_OPENMPI_PREFIX}: MPI programs cannot run and the MPI tests are "
                  "left out. Run mpi_patches/build (or scripts/setup), then cmake again.")
endif()
