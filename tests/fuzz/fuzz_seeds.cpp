// fuzz_seeds <scenario-dir> <generator-dir>: writes the seeds scripts/fuzz.sh adds to the
// bundled scenarios. For fuzz_scenario the bad-input corpus (tests/common/bad_inputs.hpp),
// one file a scenario; for fuzz_generator inputs of seeded random bytes, each long enough
// for a whole scenario of the generator (so its fuzzing starts from full scenarios, not
// from empty inputs that grow a byte at a time).
#include <bad_inputs.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace {

bool write(const std::filesystem::path& file, const std::string& bytes) {
    std::ofstream out(file, std::ios::binary);
    out << bytes;
    if (!out)
        std::fprintf(stderr, "fuzz_seeds: cannot write %s\n", file.c_str());
    return static_cast<bool>(out);
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: fuzz_seeds <scenario-dir> <generator-dir>\n");
        return 2;
    }
    const std::filesystem::path scenarios = argv[1], choices = argv[2];
    std::filesystem::create_directories(scenarios);
    std::filesystem::create_directories(choices);
    int n = 0;
    for (const bad_inputs::bad_input& b : bad_inputs::corpus)
        if (!write(scenarios / ("bad-input-" + std::to_string(n++) + ".toml"), b.text))
            return 1;
    constexpr int generator_seeds = 64;
    constexpr std::size_t seed_bytes = 256;
    std::mt19937_64 rng(20261201);
    for (int i = 0; i < generator_seeds; ++i) {
        std::string bytes(seed_bytes, '\0');
        for (char& c : bytes)
            c = static_cast<char>(rng() & 0xff);
        if (!write(choices / ("random-" + std::to_string(i)), bytes))
            return 1;
    }
    return 0;
}
