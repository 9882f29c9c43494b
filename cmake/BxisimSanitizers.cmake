# BXISIM_SANITIZE=ON (the `asan` preset): AddressSanitizer and UndefinedBehaviorSanitizer on everything
# bxisim builds (not on the programs bxicc builds for the tests, nor on SimGrid/SystemC, which Debian
# ships without them). Every test of such a build also gets the label `asan`.
option(BXISIM_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(BXISIM_SANITIZE)
  set(bxisim_sanitizer_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options(${bxisim_sanitizer_flags})
  add_link_options(${bxisim_sanitizer_flags})
  # GCC 12 warns "may be used uninitialized" inside libstdc++'s std::regex (std::function members of
  # _State) in every file that uses it, only with -fsanitize=address: a false positive of the
  # instrumented code. The usual build keeps the warning.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()

# BXISIM_FUZZ=ON (scripts/fuzz.sh, clang only): libFuzzer targets; everything is instrumented for
# coverage and checked by ASan and UBSan.
option(BXISIM_FUZZ "Build the libFuzzer targets of tests/fuzz (needs clang)" OFF)
if(BXISIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "BXISIM_FUZZ needs clang: configure with -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang "
                        "(scripts/fuzz.sh does).")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# What bxicc links into the users' programs (which are not instrumented) is built without the
# sanitizers: an instrumented library makes a program started outside bxisim refuse to start ("ASan
# runtime does not come first in initial library list").
function(bxisim_not_sanitized target)
  if(BXISIM_SANITIZE)
    get_target_property(options ${target} COMPILE_OPTIONS)
    list(REMOVE_ITEM options ${bxisim_sanitizer_flags})
    get_target_property(link_options ${target} LINK_OPTIONS)
    list(REMOVE_ITEM link_options ${bxisim_sanitizer_flags})
    set_target_properties(${target} PROPERTIES COMPILE_OPTIONS "${options}" LINK_OPTIONS "${link_options}")
  endif()
endfunction()
