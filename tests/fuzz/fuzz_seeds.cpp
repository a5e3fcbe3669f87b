// fuzz_seeds <dir>: writes the bad-input corpus (tests/common/bad_inputs.hpp) into <dir>,
// one file a scenario, as seeds for fuzz_scenario beside the bundled scenarios.
#include <bad_inputs.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_seeds <dir>\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    int n = 0;
    for (const bad_inputs::bad_input& b : bad_inputs::corpus) {
        std::ofstream out(dir / ("bad-input-" + std::to_string(n++) + ".toml"), std::ios::binary);
        out << b.text;
        if (!out) {
            std::fprintf(stderr, "fuzz_seeds: cannot write into %s\n", dir.c_str());
            return 1;
        }
    }
    return 0;
}
