# Runs PROGRAM (with the arguments ARGS, a list, if given) and fails unless its standard
# output equals the file GOLDEN.
execute_process(COMMAND "${PROGRAM}" ${ARGS} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} exited with ${rc}")
endif()
file(READ "${GOLDEN}" expected)
if(NOT out STREQUAL expected)
    message(FATAL_ERROR "output differs from ${GOLDEN}:\n${out}")
endif()
