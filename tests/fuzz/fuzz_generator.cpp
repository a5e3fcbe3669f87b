// libFuzzer target: the input is the choices of the random valid scenario generator
// (tests/common/random_scenario.hpp), so the fuzzer explores valid scenarios.
#include "fuzz_checks.hpp"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz_checks::check_generated_scenario(data, size);
    return 0;
}
