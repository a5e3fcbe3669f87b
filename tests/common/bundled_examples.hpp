#pragma once
// The bundled scenario files under examples/, for the tests that load or run every one.
// A sweep file (a scenario with a [sweep] table, for `libsched sweep`) is not a scenario
// file: the scenario reader refuses it, and the Python tests run those.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace bundled_examples {

inline bool is_sweep_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line.compare(first, 6, "[sweep") == 0)
            return true;
    }
    return false;
}

// Every .toml file below `examples` that is not a sweep file, in path order.
inline std::vector<std::filesystem::path> scenario_files(const std::filesystem::path& examples) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(examples))
        if (entry.path().extension() == ".toml" && !is_sweep_file(entry.path()))
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace bundled_examples
