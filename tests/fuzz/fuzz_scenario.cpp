// libFuzzer target: the input is a scenario file (fuzz_checks.hpp says what is a finding).
#include "fuzz_checks.hpp"
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz_checks::check_scenario_text({reinterpret_cast<const char*>(data), size});
    return 0;
}
