// cudnnfe compile: ahead-of-time plans, one serialized plan file per graph.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "cli.hpp"
#include "notes.hpp"
#include "commands.hpp"
#include "gpu_description.hpp"
#include "graph_file.hpp"
#include "json.hpp"

namespace tool {

namespace {

const char kHelp[] =
    "usage: cudnnfe compile GRAPH.json... [--device GPU.json] -o DIR [options]\n"
    "\n"
    "Build a plan for every graph in the files (one graph object in the format of\n"
    CUDNNFE_TOOL_DOCS_DIR "/graph-json.md, or a\n"
    "JSON array of them) and write each as a serialized plan, DIR/<graph name>.plan, that\n"
    "fe_graph_deserialize loads with no heuristics and no compilation. With --device, plans\n"
    "are built for the GPU that description names, on any machine (no GPU needed; cuDNN >= 9.8);\n"
    "without it, for this machine's GPU.\n"
    "\n"
    "options:\n"
    "  --device FILE         build for the GPU this description names ('cudnnfe device capture')\n"
    "  -o, --output DIR      where the plans go (created if missing)\n"
    "  --check-only          validate and check support only: no plan, no files (-o not needed)\n"
    "  --candidates          with --check-only: list each graph's engine configs in heuristics'\n"
    "                        rank order (tag, workspace, notes, viable or why not)\n"
    "  --autotune N          build up to N plans per graph, time them on this machine's GPU and\n"
    "                        keep the fastest (needs a GPU; not with --device)\n"
    "  --knob-search R       with --autotune: also time the configs one knob away from the\n"
    "                        fastest, up to R rounds (fe_build_options.autotune_knob_search)\n"
    "  --max-workspace BYTES leave out plans that need more workspace\n"
    "  --gpu N               which GPU of this machine to build for (default 0)\n"
    "  --json                one JSON object on standard output instead of the progress lines\n"
    "\n"
    "Every graph is tried; the exit code is 0 when all built, 1 when a file or graph was\n"
    "refused, 2 when the machine lacks what was needed (GPU, CUDA driver, cuDNN).\n";

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
    bool candidates = false;  // list the ranked engine configs (--candidates)
    bool json = false;
    long long autotune = 0;
    long long knob_search = 0;
    long long max_workspace = -1;
};

// One graph's outcome (or a file's, when the file itself was refused): the text line and the
// --json entry say the same.
struct Outcome {
    std::string file;
    int graph = 0, graphs_in_file = 0;  // 0: the file was refused before its graphs were read
    std::string name;                   // "" until the graph is read
    std::string result;                 // built, cached, supported, failed, refused
    double ms = -1;
    std::string engine, plan_file;
    long long workspace = -1, candidates = -1, viable = -1;
    struct Candidate {
        std::string tag;
        long long workspace = 0;
        bool viable = false;
        long long numerical_notes = 0, behavior_notes = 0;
    };
    std::vector<Candidate> ranked;  // --candidates: in heuristics' order
    int exit_code = kExitOk;
    std::string status;  // the library's status name, when a library call refused
    std::string error;   // the message printed on standard error
};

// The support check alone.
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

// What the library's FE_STATUS_CANNOT_TELL means on this machine, or "" for any other status.
// Without a CUDA driver cuDNN lists none of its runtime-compiled engines; with only the toolkit's
// stub it lists them (the target supports the graph) but cannot compile their kernels.
std::string environment_cause(fe_status status, const Settings &s) {
    if (status != FE_STATUS_CANNOT_TELL) return "";
    if (cuda_driver() == Driver::Missing)
        return std::string(s.check_only ? "whether the target supports it cannot be told here"
                                        : "it cannot be built here") +
               ": no CUDA driver (libcuda.so.1 not found), and without one cuDNN lists none of its runtime-compiled "
               "engines";
    std::string reason = driver_reason();
    return "the target supports it, but its engines compile their kernels on a GPU, and this machine has none" +
           (reason.empty() ? std::string() : ": " + reason);
}

// A library call's refusal, `cause` (environment_cause) first when there is one: the outcome's
// error, printed on standard error too.
void refused(Outcome &o, fe_status status, const std::string &message, const std::string &context,
             const std::string &cause) {
    o.result = cause.empty() ? "failed" : "cannot_tell";
    o.status = fe_status_string(status);
    o.exit_code = cause.empty() ? exit_code_for(status) : kExitEnvironment;
    // The library's closing advice about the driver repeats the cause (and the closing note): its
    // line up to that advice is what it adds.
    std::string said = message;
    for (const char *advice : {"; this machine has no CUDA driver library", "; the CUDA driver library here is"}) {
        size_t at = said.find(advice);
        if (at != std::string::npos) said.erase(at);
    }
    o.error = context + ": " + (cause.empty() ? message : cause + "; the library said: " + said);
    fail("compile", o.exit_code, o.error);
}

// One graph: load, check or build, write. Prints its line (not with --json).
Outcome compile_one(const std::string &path, const GraphSource &source, const std::string &progress, const Settings &s,
                    std::set<std::string> &written) {
    Outcome o;
    o.file = path;
    o.graph = source.index;
    o.graphs_in_file = source.count;
    // Paths, graph names and messages come from files: printed terminal-safe.
    auto say = [&](const char *format, auto... values) {
        if (s.json) return;
        int n = std::snprintf(nullptr, 0, format, values...);
        std::string text(n > 0 ? static_cast<size_t>(n) + 1 : 1, '\0');
        if (n > 0) std::snprintf(&text[0], text.size(), format, values...);
        text.resize(n > 0 ? static_cast<size_t>(n) : 0);
        std::fputs(terminal_safe(text, EscapeStyle::Text).c_str(), stdout);
        std::fflush(stdout);
    };
    say("%s ", progress.c_str());
    fe_graph *graph = nullptr;
    fe_status status = load_graph(source, &graph);
    if (status != FE_OK) {
        say("%s: refused\n", where(path, source).c_str());
        refused(o, status, status_message(status, ""), where(path, source), "");
        o.result = "refused";
        return o;
    }
    const char *graph_name = "?";
    fe_graph_get_name(graph, &graph_name);
    o.name = graph_name;
    say("%s ... ", o.name.c_str());
    Clock::time_point start = Clock::now();
    if (s.check_only) {
        status = check_support(graph, s);
        if (status == FE_OK) {
            size_t candidates = 0, viable = 0;
            fe_graph_candidate_count(graph, &candidates);
            fe_graph_viable_count(graph, &viable);
            o.result = "supported";
            o.ms = ms_since(start);
            o.candidates = static_cast<long long>(candidates);
            o.viable = static_cast<long long>(viable);
            say("supported (%lld of %lld engine configs viable), checked in %.0f ms\n", o.viable, o.candidates, o.ms);
            for (size_t i = 0; s.candidates && i < candidates; ++i) {
                fe_config_info info = FE_CONFIG_INFO_INIT;
                if (fe_graph_candidate_info(graph, i, &info) != FE_OK) break;
                Outcome::Candidate c{info.tag ? info.tag : "?", info.workspace_bytes, info.viable != 0,
                                     info.numerical_notes, info.behavior_notes};
                std::string notes;
                for (const std::string &note : numerical_note_names(c.numerical_notes)) notes += " " + note;
                for (const std::string &note : behavior_note_names(c.behavior_notes)) notes += " " + note;
                say("  %2zu. %-40s workspace %lld B%s%s\n", i + 1, c.tag.c_str(), c.workspace,
                    c.viable ? "" : " (not viable)", notes.empty() ? "" : ("; notes:" + notes).c_str());
                o.ranked.push_back(c);
            }
        }
    } else {
        // An identical graph built before (in this run, or in the persistent cache) is not built again.
        int64_t hits_before = 0, disk_before = 0, hits = 0, disk = 0;
        fe_plan_cache_stats(&hits_before, &disk_before, nullptr, nullptr);
        status = build(graph, s);
        fe_plan_cache_stats(&hits, &disk, nullptr, nullptr);
        bool cached = hits > hits_before || disk > disk_before;
        std::string blob, error;
        if (status == FE_OK) status = serialize(graph, blob);
        if (status == FE_OK) {
            o.ms = ms_since(start);
            std::string directory = s.output.back() == '/' ? s.output : s.output + "/";
            std::string stem = file_stem(o.name), file = directory + stem + ".plan";
            for (int n = 2; written.count(file); ++n) file = directory + stem + "-" + std::to_string(n) + ".plan";
            if (!write_file(file, blob.data(), blob.size(), error)) {
                say("%s", "failed\n");
                fe_graph_destroy(graph);
                o.result = "failed";
                o.exit_code = fail("compile", kExitBadInput, error);
                o.error = error;
                return o;
            }
            written.insert(file);
            int64_t workspace = 0;
            fe_graph_workspace_size(graph, &workspace);
            const char *tag = "?";
            fe_graph_engine_tag(graph, &tag);
            o.result = cached ? "cached" : "built";
            o.engine = tag;
            o.workspace = workspace;
            o.plan_file = file;
            say("%s in %.0f ms (engine %s, workspace %s) -> %s\n", cached ? "taken from the plan cache" : "built", o.ms,
                tag, bytes_text(static_cast<double>(workspace)).c_str(), file.c_str());
        }
    }
    if (status != FE_OK) {
        // The library's message, kept before anything else calls the library.
        std::string message = status_message(status, "");
        std::string cause = environment_cause(status, s);
        say("%s", cause.empty() ? "failed\n" : "cannot tell here\n");
        refused(o, status, message, where(path, source) + " (" + o.name + ")", cause);
    }
    fe_graph_destroy(graph);
    return o;
}

void print_json(const Settings &s, const std::string &device_path, const std::string &target, long long gpu,
                const std::vector<Outcome> &outcomes, int good, int total, int worst) {
    JsonWriter j;
    j.begin_object();
    j.key("target").begin_object();
    if (device_path.empty()) j.key("device_file").null();
    else j.key("device_file").string(device_path);
    if (device_path.empty()) j.key("gpu_index").integer(gpu);
    else j.key("gpu_index").null();
    if (target.empty()) j.key("gpu").null();
    else j.key("gpu").string(target);
    j.end();
    j.key("check_only").boolean(s.check_only);
    if (s.check_only) j.key("output_directory").null();
    else j.key("output_directory").string(s.output);
    j.key("graphs").begin_array();
    for (const Outcome &o : outcomes) {
        j.begin_object();
        j.key("file").string(o.file);
        if (o.graph) j.key("graph").integer(o.graph).key("graphs_in_file").integer(o.graphs_in_file);
        else j.key("graph").null().key("graphs_in_file").null();
        if (o.name.empty()) j.key("name").null();
        else j.key("name").string(o.name);
        j.key("result").string(o.result);
        j.key("ok").boolean(o.exit_code == kExitOk);
        if (o.ms >= 0) j.key("milliseconds").number(o.ms);
        else j.key("milliseconds").null();
        if (s.check_only) {
            if (o.candidates >= 0) j.key("engine_configs").integer(o.candidates).key("viable_engine_configs").integer(o.viable);
            else j.key("engine_configs").null().key("viable_engine_configs").null();
            if (s.candidates) {
                j.key("ranked").begin_array();
                for (const Outcome::Candidate &c : o.ranked) {
                    j.begin_object().key("tag").string(c.tag).key("workspace_bytes").integer(c.workspace);
                    j.key("viable").boolean(c.viable).key("numerical_notes").begin_array();
                    for (const std::string &note : numerical_note_names(c.numerical_notes)) j.string(note);
                    j.end().key("behavior_notes").begin_array();
                    for (const std::string &note : behavior_note_names(c.behavior_notes)) j.string(note);
                    j.end().end();
                }
                j.end();
            }
        } else {
            if (o.engine.empty()) j.key("engine").null().key("workspace_bytes").null().key("plan_file").null();
            else j.key("engine").string(o.engine).key("workspace_bytes").integer(o.workspace).key("plan_file").string(o.plan_file);
        }
        if (o.exit_code == kExitOk) {
            j.key("error").null();
        } else {
            j.key("error").begin_object();
            j.key("exit_code").integer(o.exit_code);
            if (o.status.empty()) j.key("status").null();
            else j.key("status").string(o.status);
            j.key("message").string(o.error);
            j.end();
        }
        j.end();
    }
    j.end();
    j.key(s.check_only ? "supported" : "compiled").integer(good);
    j.key("total").integer(total);
    j.key("exit_code").integer(worst);
    j.end();
    std::fputs(j.text().c_str(), stdout);
}

}  // namespace

int compile_command(int argc, char **argv) {
    Args args;
    int rc = parse_or_exit("compile", kHelp, argc, argv,
                           {{"--device", nullptr, true},
                            {"--output", "-o", true},
                            {"--check-only", nullptr, false},
                            {"--candidates", nullptr, false},
                            {"--autotune", nullptr, true},
                            {"--knob-search", nullptr, true},
                            {"--max-workspace", nullptr, true},
                            {"--gpu", nullptr, true},
                            {"--json", nullptr, false}},
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
    s.candidates = args.has("--candidates");
    if (s.candidates && !s.check_only)
        return fail("compile", kExitBadInput, "--candidates lists what the support check finds: give --check-only too");
    s.json = args.has("--json");
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
    std::string device_path, target;
    if (args.has("--device")) {
        device_path = args.value("--device");
        GpuDescription gpu_description;
        if (!read_file(device_path, s.device_json, error)) return fail("compile", kExitBadInput, "--device: " + error);
        if (!read_gpu_description(s.device_json, gpu_description, error))
            return fail("compile", kExitBadInput, "--device " + device_path + ": " + error);
        target = gpu_headline(gpu_description);
    }
    // Each file's graphs, or the file's refusal (an outcome of its own, in the files' order).
    struct File {
        std::string path;
        std::vector<GraphSource> sources;
        Outcome refusal;
    };
    std::vector<File> files;
    int worst = kExitOk;
    int total = 0;
    for (const std::string &path : args.positional) {
        std::string content;
        File file;
        file.path = path;
        if (!read_file(path, content, error) || !split_graph_file(content, file.sources, error)) {
            Outcome &o = file.refusal;
            o.file = path;
            o.result = "refused";
            o.error = error.rfind("cannot read", 0) == 0 ? error : path + ": " + error;
            o.exit_code = fail("compile", kExitBadInput, o.error);
            worst = std::max(worst, o.exit_code);
            file.sources.clear();
        }
        total += static_cast<int>(file.sources.size());
        files.push_back(std::move(file));
    }
    std::vector<Outcome> outcomes;
    if (total == 0) {
        for (const File &file : files) outcomes.push_back(file.refusal);
        if (s.json) print_json(s, device_path, target, gpu, outcomes, 0, 0, worst);
        return worst;
    }

    if (s.device_json.empty()) {
        std::string why;
        int32_t count = gpu_count(why);
        if (count < 0) return fail("compile", kExitEnvironment, "cannot look for a GPU: " + why);
        if (count == 0) {
            std::string problem = driver_problem();
            if (!problem.empty())
                return fail("compile", kExitEnvironment,
                            problem + (s.autotune > 0 ? "; --autotune times plans on this machine's GPU"
                                                      : "; give --device GPU.json (captured with 'cudnnfe device "
                                                        "capture' on the target) to build for a described GPU"));
            return fail("compile", kExitEnvironment,
                        s.autotune > 0 ? "--autotune needs a GPU and this machine has none"
                                       : "no GPU on this machine: give --device GPU.json (captured with 'cudnnfe device "
                                         "capture' on the target) to build for a described GPU");
        }
        if (gpu >= count)
            return fail("compile", kExitBadInput,
                        "GPU " + std::to_string(gpu) + " does not exist (" + std::to_string(count) + " present)");
        fe_status status = fe_handle_create(static_cast<int32_t>(gpu), &s.handle);
        if (status != FE_OK) return fail_status("compile", status, "");
        std::string json;
        GpuDescription description;
        if (s.json && device_properties(static_cast<int32_t>(gpu), json) == FE_OK &&
            read_gpu_description(json, description, error))
            target = gpu_headline(description);
    }
    if (!s.check_only && !make_directories(s.output, error)) {
        fe_handle_destroy(s.handle);
        return fail("compile", kExitBadInput, error);
    }

    std::set<std::string> written;
    int done = 0, good = 0;
    for (const File &file : files) {
        if (file.refusal.exit_code != kExitOk) outcomes.push_back(file.refusal);
        for (const GraphSource &source : file.sources) {
            std::string progress = "[" + std::to_string(++done) + "/" + std::to_string(total) + "]";
            outcomes.push_back(compile_one(file.path, source, progress, s, written));
            good += outcomes.back().exit_code == kExitOk;
            worst = std::max(worst, outcomes.back().exit_code);
        }
    }
    fe_handle_destroy(s.handle);
    if (s.json) print_json(s, device_path, target, gpu, outcomes, good, total, worst);
    else if (s.check_only) std::printf("%d of %d graphs supported\n", good, total);
    else std::printf("%d of %d graphs compiled into %s\n", good, total, s.output.c_str());
    std::fflush(stdout);
    if (s.check_only && cuda_driver() == Driver::Missing &&
        std::any_of(outcomes.begin(), outcomes.end(), [](const Outcome &o) { return o.exit_code == kExitEnvironment; }))
        std::fprintf(stderr, "cudnnfe compile: note: with CUDNNFE_STUB_DRIVER=1 the library loads the CUDA toolkit's stub "
                             "driver, cuDNN lists those engines and --check-only can tell\n");
    return worst;
}

}  // namespace tool
