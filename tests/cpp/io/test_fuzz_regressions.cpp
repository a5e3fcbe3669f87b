// Every finding of the fuzzers, kept under tests/fuzz/regressions/<target>/, replayed
// through the fuzz targets' own path (tests/fuzz/fuzz_checks.hpp): in every build, with or
// without clang. A file of fuzz_scenario is a scenario file, one of fuzz_generator the
// generator's choices.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <fuzz_checks.hpp>
#include <iterator>
#include <string>
#include <vector>

namespace test_fuzz_regressions {

namespace {

namespace fs = std::filesystem;

const fs::path regressions = fs::path(LIBSCHED_SOURCE_DIR) / "tests" / "fuzz" / "regressions";

std::vector<fs::path> inputs_of(const std::string& target) {
    std::vector<fs::path> out;
    if (!fs::is_directory(regressions / target))
        return out;
    for (const fs::directory_entry& e : fs::directory_iterator(regressions / target))
        if (e.is_regular_file())
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string bytes_of(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("fuzz_scenario's findings read, validate and run without a finding") {
    for (const fs::path& p : inputs_of("fuzz_scenario")) {
        INFO(p.filename().string());
        REQUIRE_NOTHROW(fuzz_checks::check_scenario_text(bytes_of(p)));
    }
}

TEST_CASE("fuzz_generator's findings generate, validate and run without a finding") {
    for (const fs::path& p : inputs_of("fuzz_generator")) {
        INFO(p.filename().string());
        const std::string bytes = bytes_of(p);
        REQUIRE_NOTHROW(fuzz_checks::check_generated_scenario(
            reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    }
}

} // namespace test_fuzz_regressions
