# Compile options for the targets this project builds itself (tests, tools, bindings,
# benchmarks). Users of the header-only library never inherit them.
add_library(libsched_build_options INTERFACE)
if(LIBSCHED_DEVELOPMENT_BUILD)
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(libsched_build_options INTERFACE
            -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror)
        # GCC's sanitizer instrumentation makes -Wmaybe-uninitialized report false positives
        # (in libstdc++'s <regex>, for one); the sanitizers check the real thing at run time.
        if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_FLAGS MATCHES "-fsanitize=")
            target_compile_options(libsched_build_options INTERFACE -Wno-maybe-uninitialized)
        endif()
    elseif(MSVC)
        target_compile_options(libsched_build_options INTERFACE /W4 /WX)
    endif()
    # Bounds-checked operator[] and friends in libstdc++; cheap enough for every dev build.
    target_compile_definitions(libsched_build_options INTERFACE _GLIBCXX_ASSERTIONS)
endif()
