// cudnnfe: the command-line face of the library (docs/cudnnfe-tool.md). It uses only the
// public C ABI of cudnnfe.h, as any other program would.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"

namespace {

const char kUsage[] =
    "usage: cudnnfe <command> [options]\n"
    "\n"
    "commands:\n"
    "  info             versions of cudnnfe, cuDNN, the CUDA runtime and driver; the GPUs\n"
    "  device capture   write this machine's GPU description (for deviceless builds elsewhere)\n"
    "  device show      print what a GPU description says\n"
    "  compile          build plans ahead of time from graph JSON files, one file per plan\n"
    "  bench            build and time graphs on this machine's GPU\n"
    "  inspect          describe a serialized plan\n"
    "  schema           every operation's description (ports, options, defaults) as JSON\n"
    "\n"
    "'cudnnfe <command> --help' describes a command. 'cudnnfe --version' prints the version.\n"
    "exit codes: 0 success, 1 bad input (flags, files, graphs), 2 environment (no GPU, no cuDNN)\n";

struct Command {
    const char *name;
    int (*run)(int, char **);
};

const Command kCommands[] = {
    {"info", tool::info_command},       {"device", tool::device_command},   {"compile", tool::compile_command},
    {"bench", tool::bench_command},     {"inspect", tool::inspect_command}, {"schema", tool::schema_command},
};

// "cudnnfe: unknown command 'benc'; did you mean 'bench'?" (or, with nothing close, where to look).
int unknown_command(const std::string &name, bool help_too) {
    std::vector<std::string> names;
    for (const Command &c : kCommands) names.push_back(c.name);
    if (help_too) names.push_back("help");
    std::string suggestion = tool::did_you_mean(name, names);
    std::fprintf(stderr, "cudnnfe: unknown command '%s'%s\n", name.c_str(),
                 suggestion.empty() ? " (see 'cudnnfe --help')" : suggestion.c_str());
    return tool::kExitBadInput;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fputs(kUsage, stderr);
        return tool::kExitBadInput;
    }
    std::string first = argv[1];
    if (first == "-h" || first == "--help" || first == "help") {
        if (argc > 2 && first == "help") {
            for (const Command &c : kCommands)
                if (std::strcmp(argv[2], c.name) == 0) {
                    char help[] = "--help";
                    char *args[] = {help};
                    return c.run(1, args);
                }
            return unknown_command(argv[2], false);
        }
        std::fputs(kUsage, stdout);
        return tool::kExitOk;
    }
    if (first == "--version" || first == "-V") {
        std::printf("cudnnfe %s\n", fe_version_string());
        return tool::kExitOk;
    }
    for (const Command &c : kCommands)
        if (first == c.name) return c.run(argc - 2, argv + 2);
    if (first.size() > 1 && first[0] == '-') {
        std::string name = first.substr(0, first.find('='));
        std::string suggestion = tool::did_you_mean(name, {"--help", "--version", "-h", "-V"});
        std::fprintf(stderr, "cudnnfe: unknown option '%s'%s\n", name.c_str(),
                     suggestion.empty() ? " (see 'cudnnfe --help')" : suggestion.c_str());
        return tool::kExitBadInput;
    }
    return unknown_command(first, true);
}
