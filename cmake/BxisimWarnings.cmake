# Warnings on for bxisim's own targets only; third-party headers come in as SYSTEM includes.
add_library(bxisim_warnings INTERFACE)
target_compile_options(bxisim_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
option(BXISIM_WERROR "Turn warnings into errors" OFF)
if(BXISIM_WERROR)
  target_compile_options(bxisim_warnings INTERFACE -Werror)
endif()
