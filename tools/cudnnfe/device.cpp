// cudnnfe device capture | show: the GPU descriptions deviceless builds use.
#include <cstdio>
#include <cstring>

#include "cli.hpp"
#include "commands.hpp"
#include "gpu_description.hpp"

namespace tool {

namespace {

const char kHelp[] =
    "usage: cudnnfe device capture [-o FILE] [--gpu N]\n"
    "       cudnnfe device show FILE\n"
    "\n"
    "capture  Write cuDNN's JSON description of this machine's GPU (default GPU 0) to FILE, or\n"
    "         to standard output without -o. Build plans for that GPU anywhere with\n"
    "         'cudnnfe compile --device FILE'. Without a GPU: exit code 2.\n"
    "show     Print what a captured description says (name, compute capability, SMs, memory).\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   where to write the description (capture)\n"
    "  --gpu N             which GPU to describe (capture; default 0)\n";

int capture(const Args &args) {
    if (args.positional.size() > 1)
        return fail("device capture", kExitBadInput, "unexpected argument '" + args.positional[1] + "'");
    long long gpu = 0;
    std::string error;
    if (!args.integer("--gpu", 0, 0, 1 << 20, &gpu, error)) return fail("device capture", kExitBadInput, error);
    std::string why;
    int32_t count = gpu_count(why);
    if (count < 0) return fail("device capture", kExitEnvironment, "cannot look for a GPU: " + why);
    if (count == 0) {
        std::string problem = driver_problem();
        return fail("device capture", kExitEnvironment,
                    (problem.empty() ? "no GPU on this machine (the CUDA runtime reports none)" : problem) +
                        "; run it on the machine that has the GPU");
    }
    if (gpu >= count)
        return fail("device capture", kExitBadInput,
                    "GPU " + std::to_string(gpu) + " does not exist (" + std::to_string(count) + " present)");
    std::string json;
    fe_status status = device_properties(static_cast<int32_t>(gpu), json);
    if (status != FE_OK) return fail_status("device capture", status, "");
    GpuDescription description;
    std::string headline = read_gpu_description(json, description, error) ? gpu_headline(description) : "GPU";
    std::string output = args.value("--output");
    if (output.empty() || output == "-") {
        std::printf("%s\n", json.c_str());
    } else {
        if (!write_file(output, json.data(), json.size(), error)) return fail("device capture", kExitBadInput, error);
        std::fprintf(stderr, "captured GPU %lld: %s -> %s\n", gpu, headline.c_str(), output.c_str());
    }
    return kExitOk;
}

int show(const Args &args) {
    if (args.positional.size() != 2)
        return fail("device show", kExitBadInput, "give one description file (see 'cudnnfe device --help')");
    const std::string &path = args.positional[1];
    std::string json, error;
    if (!read_file(path, json, error)) return fail("device show", kExitBadInput, error);
    GpuDescription gpu;
    if (!read_gpu_description(json, gpu, error)) return fail("device show", kExitBadInput, path + ": " + error);
    std::printf("%s\n%s", gpu_headline(gpu).c_str(), gpu_details(gpu, "  ").c_str());
    return kExitOk;
}

}  // namespace

int device_command(int argc, char **argv) {
    Args args;
    int rc = parse_or_exit("device", kHelp, argc, argv, {{"--output", "-o", true}, {"--gpu", nullptr, true}}, args);
    if (rc >= 0) return rc;
    if (args.positional.empty()) return fail("device", kExitBadInput, "say 'capture' or 'show' (see 'cudnnfe device --help')");
    const std::string &action = args.positional[0];
    if (action == "capture") return capture(args);
    if (action == "show") return show(args);
    std::string suggestion = did_you_mean(action, {"capture", "show"});
    return fail("device", kExitBadInput,
                "unknown action '" + action + "'" + (suggestion.empty() ? " (capture or show)" : suggestion));
}

}  // namespace tool
