# Use ccache when the machine has it: rebuilding a clean clone in CI is then cheap.
find_program(BXISIM_CCACHE ccache)
if(BXISIM_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER ${BXISIM_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${BXISIM_CCACHE})
endif()
