#include "cli/command.hpp"

int main(int argc, char** argv) { return phasesim::cli::run(argc, argv); }
