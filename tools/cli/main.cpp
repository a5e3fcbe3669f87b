// The libsched command: everything is in run_cli() so the Python package can offer the same.
#include <iostream>
#include <libsched/io/cli.hpp>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    return libsched::run_cli(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
