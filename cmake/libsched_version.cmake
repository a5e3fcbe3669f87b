# The version lives in one header; read it from there so CMake, pip and C++ agree.
function(libsched_read_version header out_var)
    file(STRINGS "${header}" _line REGEX "^#define LIBSCHED_VERSION_STRING ")
    if(NOT _line MATCHES "\"([0-9]+\\.[0-9]+\\.[0-9]+)\"")
        message(FATAL_ERROR "libsched: no LIBSCHED_VERSION_STRING \"X.Y.Z\" in ${header}")
    endif()
    set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()
