// cudnnfe compile: ahead-of-time plans, one serialized plan file per graph.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <set>

#include "cli.hpp"
#include "commands.hpp"
#include "gpu_description.hpp"
#include "graph_file.hpp"

namespace tool {

namespace {

const char kHelp[] =
    "usage: cudnnfe compile GRAPH.json... [--device GPU.json] -o DIR [options]\n"
    "\n"
    "Build a plan for every graph in the files (one graph object of docs/graph-json.md, or a\n"
    "JSON array of them) and write each as a serialized plan, DIR/<graph name>.plan, that\n"
    "fe_graph_deserialize loads with no heuristics and no compilation. With --device, plans\n"
    "are built for the GPU that description names, on any machine (no GPU needed; cuDNN >= 9.8);\n"
    "without it, for this machine's GPU.\n"
    "\n"
    "options:\n"
    "  --device FILE         build for the GPU this description names ('cudnnfe device capture')\n"
    "  -o, --output DIR      where the plans go (created if missing)\n"
    "  --check-only          validate and check support only: no plan, no files (-o not needed)\n"
    "  --autotune N          build up to N plans per graph, time them on this machine's GPU and\n"
    "                        keep the fastest (needs a GPU; not with --device)\n"
    "  --knob-search R       with --autotune: also time the configs one knob away from the\n"
    "                        fastest, up to R rounds (fe_build_options.autotune_knob_search)\n"
    "  --max-workspace BYTES leave out plans that need more workspace\n"
    "  --gpu N               which GPU of this machine to build for (default 0)\n"
    "\n"
    "Every graph is tried; the exit code is 0 when all built, 1 when a file or graph was\n"
    "refused, 2 when the machine lacks what was needed (GPU, cuDNN).\n";

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A file name from a graph name: letters, digits, '-', '_' and '.' kept, the rest '_'.
std::string file_stem(const std::string &name) {
    std::string out;
    for (char c : name) {
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                    (c == '.' && !out.empty());
        out += keep ? c : '_';
    }
    return out.empty() ? "graph" : out;
}

struct Settings {
    std::string device_json;  // empty: this machine's GPU
    fe_handle *handle = nullptr;
    std::string output;
    bool check_only = false;
    long long autotune = 0;
    long long knob_search = 0;
    long long max_workspace = -1;
};

// The support check alone; prints the result after the progress prefix.
fe_status check_support(fe_graph *graph, const Settings &s) {
    fe_status status = FE_OK;
    if (!s.device_json.empty()) status = fe_graph_set_device_properties(graph, s.device_json.c_str());
    if (status == FE_OK) status = fe_graph_validate(graph);
    if (status == FE_OK) status = fe_graph_build_operation_graph(graph, s.handle);
    if (status == FE_OK) status = fe_graph_create_execution_plans(graph, nullptr, 0);
    if (status == FE_OK && s.max_workspace >= 0) status = fe_graph_deselect_workspace_greater_than(graph, s.max_workspace);
    if (status == FE_OK) status = fe_graph_check_support(graph);
    return status;
}

fe_status build(fe_graph *graph, const Settings &s) {
    fe_build_options options = FE_BUILD_OPTIONS_INIT;
    options.max_workspace_bytes = s.max_workspace;
    if (!s.device_json.empty()) options.device_properties_json = s.device_json.c_str();
    if (s.autotune > 0) {
        options.autotune = 1;
        options.autotune_candidates = static_cast<int32_t>(s.autotune);
        options.autotune_knob_search = static_cast<int32_t>(s.knob_search);
    }
    return fe_graph_build(graph, s.handle, &options);
}

// One graph: load, check or build, write. Returns its exit code; prints its line.
int compile_one(const std::string &path, const GraphSource &source, const std::string &progress, const Settings &s,
                std::set<std::string> &written) {
    std::printf("%s ", progress.c_str());
    std::fflush(stdout);
    fe_graph *graph = nullptr;
    fe_status status = load_graph(source, &graph);
    if (status != FE_OK) {
        std::printf("%s: refused\n", where(path, source).c_str());
        std::fflush(stdout);
        return fail_status("compile", status, where(path, source));
    }
    const char *graph_name = "?";
    fe_graph_get_name(graph, &graph_name);
    std::string name = graph_name;
    std::printf("%s ... ", name.c_str());
    std::fflush(stdout);
    Clock::time_point start = Clock::now();
    int rc = kExitOk;
    if (s.check_only) {
        status = check_support(graph, s);
        if (status == FE_OK) {
            size_t candidates = 0, viable = 0;
            fe_graph_candidate_count(graph, &candidates);
            fe_graph_viable_count(graph, &viable);
            std::printf("supported (%lld of %lld engine configs viable), checked in %.0f ms\n",
                        static_cast<long long>(viable), static_cast<long long>(candidates), ms_since(start));
        }
    } else {
        // An identical graph built before (in this run, or in the persistent cache) is not built again.
        int64_t hits_before = 0, disk_before = 0, hits = 0, disk = 0;
        fe_plan_cache_stats(&hits_before, &disk_before, nullptr, nullptr);
        status = build(graph, s);
        fe_plan_cache_stats(&hits, &disk, nullptr, nullptr);
        const char *verb = hits > hits_before || disk > disk_before ? "taken from the plan cache" : "built";
        std::string blob, error;
        if (status == FE_OK) status = serialize(graph, blob);
        if (status == FE_OK) {
            double ms = ms_since(start);
            std::string directory = s.output.back() == '/' ? s.output : s.output + "/";
            std::string stem = file_stem(name), file = directory + stem + ".plan";
            for (int n = 2; written.count(file); ++n) file = directory + stem + "-" + std::to_string(n) + ".plan";
            if (!write_file(file, blob.data(), blob.size(), error)) {
                std::printf("failed\n");
                fe_graph_destroy(graph);
                return fail("compile", kExitBadInput, error);
            }
            written.insert(file);
            int64_t workspace = 0;
            fe_graph_workspace_size(graph, &workspace);
            const char *tag = "?";
            fe_graph_engine_tag(graph, &tag);
            std::printf("%s in %.0f ms (engine %s, workspace %s) -> %s\n", verb, ms, tag,
                        bytes_text(static_cast<double>(workspace)).c_str(), file.c_str());
        }
    }
    if (status != FE_OK) {
        std::printf("failed\n");
        std::fflush(stdout);
        rc = fail_status("compile", status, where(path, source) + " (" + name + ")");
    }
    std::fflush(stdout);
    fe_graph_destroy(graph);
    return rc;
}

}  // namespace

int compile_command(int argc, char **argv) {
    Args args;
    int rc = parse_or_exit("compile", kHelp, argc, argv,
                           {{"--device", nullptr, true},
                            {"--output", "-o", true},
                            {"--check-only", nullptr, false},
                            {"--autotune", nullptr, true},
                            {"--knob-search", nullptr, true},
                            {"--max-workspace", nullptr, true},
                            {"--gpu", nullptr, true}},
                           args);
    if (rc >= 0) return rc;
    Settings s;
    std::string error;
    long long gpu = 0;
    if (!args.integer("--autotune", 0, 1, 1000, &s.autotune, error) ||
        !args.integer("--knob-search", 0, 1, 100, &s.knob_search, error) ||
        !args.integer("--max-workspace", -1, 0, INT64_MAX, &s.max_workspace, error) ||
        !args.integer("--gpu", 0, 0, 1 << 20, &gpu, error))
        return fail("compile", kExitBadInput, error);
    s.check_only = args.has("--check-only");
    s.output = args.value("--output");
    if (args.positional.empty()) return fail("compile", kExitBadInput, "give a graph file (see 'cudnnfe compile --help')");
    if (s.output.empty() && !s.check_only)
        return fail("compile", kExitBadInput, "say where the plans go with -o DIR (or use --check-only)");
    if (s.knob_search > 0 && s.autotune == 0)
        return fail("compile", kExitBadInput, "--knob-search extends autotuning: give --autotune N too");
    if (s.autotune > 0 && args.has("--device"))
        return fail("compile", kExitBadInput, "--autotune times plans on this machine's GPU; it cannot be used with --device");
    if (s.autotune > 0 && s.check_only)
        return fail("compile", kExitBadInput, "--autotune builds plans; it cannot be used with --check-only");

    // The target: a described GPU, or this machine's.
    if (args.has("--device")) {
        std::string path = args.value("--device");
        GpuDescription gpu_description;
        if (!read_file(path, s.device_json, error)) return fail("compile", kExitBadInput, "--device: " + error);
        if (!read_gpu_description(s.device_json, gpu_description, error))
            return fail("compile", kExitBadInput, "--device " + path + ": " + error);
    }
    std::vector<std::pair<std::string, std::vector<GraphSource>>> files;
    int worst = kExitOk;
    int total = 0;
    for (const std::string &path : args.positional) {
        std::string content;
        std::vector<GraphSource> sources;
        if (!read_file(path, content, error) || !split_graph_file(content, sources, error)) {
            worst = std::max(worst, fail("compile", kExitBadInput, error.rfind("cannot read", 0) == 0 ? error : path + ": " + error));
            continue;
        }
        total += static_cast<int>(sources.size());
        files.emplace_back(path, std::move(sources));
    }
    if (files.empty()) return worst;

    if (s.device_json.empty()) {
        std::string why;
        int32_t count = gpu_count(why);
        if (count < 0) return fail("compile", kExitEnvironment, "cannot look for a GPU: " + why);
        if (count == 0)
            return fail("compile", kExitEnvironment,
                        s.autotune > 0 ? "--autotune needs a GPU and this machine has none"
                                       : "no GPU on this machine: give --device GPU.json (captured with 'cudnnfe device "
                                         "capture' on the target) to build for a described GPU");
        if (gpu >= count)
            return fail("compile", kExitBadInput,
                        "GPU " + std::to_string(gpu) + " does not exist (" + std::to_string(count) + " present)");
        fe_status status = fe_handle_create(static_cast<int32_t>(gpu), &s.handle);
        if (status != FE_OK) return fail_status("compile", status, "");
    }
    if (!s.check_only && !make_directories(s.output, error)) {
        fe_handle_destroy(s.handle);
        return fail("compile", kExitBadInput, error);
    }

    std::set<std::string> written;
    int done = 0, good = 0;
    for (const auto &file : files)
        for (const GraphSource &source : file.second) {
            std::string progress = "[" + std::to_string(++done) + "/" + std::to_string(total) + "]";
            int one = compile_one(file.first, source, progress, s, written);
            good += one == kExitOk;
            worst = std::max(worst, one);
        }
    fe_handle_destroy(s.handle);
    if (s.check_only) std::printf("%d of %d graphs supported\n", good, total);
    else std::printf("%d of %d graphs compiled into %s\n", good, total, s.output.c_str());
    return worst;
}

}  // namespace tool
