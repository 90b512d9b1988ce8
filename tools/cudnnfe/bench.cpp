// cudnnfe bench: build (optionally autotune) and time graphs on this machine's GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "flops.hpp"
#include "gpu_description.hpp"
#include "graph_file.hpp"
#include "json.hpp"

namespace tool {

namespace {

const char kHelp[] =
    "usage: cudnnfe bench GRAPH.json [--autotune N [--knob-search R]] [--iterations N] [--warmup N] [--gpu N]\n"
    "\n"
    "Build every graph of the file for this machine's GPU, fill its inputs with random values,\n"
    "execute it and print one row per graph: median time per execution, TFLOPS (for matmuls,\n"
    "convolutions and attention) and GB/s (bytes of inputs and outputs), the workspace and the\n"
    "engine. Floating-point inputs are uniform in [-1, 1]; integer and boolean inputs (sequence\n"
    "lengths, offsets, page tables, seeds) are zeros. Without a GPU: exit code 2.\n"
    "\n"
    "options:\n"
    "  --autotune N     build up to N plans per graph and keep the fastest (fe_graph_autotune)\n"
    "  --knob-search R  with --autotune: also time the configs one knob away from the fastest,\n"
    "                   up to R rounds (fe_build_options.autotune_knob_search)\n"
    "  --iterations N   timed samples per graph (default 20); the median is reported\n"
    "  --warmup N       untimed executions first (default 3)\n"
    "  --gpu N          which GPU (default 0)\n"
    "  --json           one JSON object on standard output instead of the table\n";

using Clock = std::chrono::steady_clock;

struct Bindings {
    std::vector<fe_tensor *> tensors;
    std::vector<fe_buffer *> buffers;
    double bytes = 0;  // of inputs and outputs: what one execution must move at least
    ~Bindings() {
        for (fe_buffer *b : buffers) fe_buffer_destroy(b);
    }
};

bool is_float(fe_data_type t) {
    return t == FE_DATA_FLOAT || t == FE_DATA_DOUBLE || t == FE_DATA_HALF || t == FE_DATA_BFLOAT16 ||
           t == FE_DATA_FP8_E4M3 || t == FE_DATA_FP8_E5M2;
}

// A device buffer for every input and output; inputs get random (or zero) values.
fe_status bind(fe_graph *graph, int32_t gpu, std::mt19937 &rng, Bindings &out) {
    size_t inputs = 0, outputs = 0;
    fe_status st = fe_graph_input_count(graph, &inputs);
    if (st == FE_OK) st = fe_graph_output_count(graph, &outputs);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    for (size_t i = 0; st == FE_OK && i < inputs + outputs; ++i) {
        fe_tensor *t = nullptr;
        st = i < inputs ? fe_graph_input(graph, i, &t) : fe_graph_output(graph, i - inputs, &t);
        fe_buffer *buffer = nullptr;
        if (st == FE_OK) st = fe_buffer_create_for_tensor(gpu, t, &buffer);
        if (st != FE_OK) return st;
        out.tensors.push_back(t);
        out.buffers.push_back(buffer);
        int64_t bytes = 0;
        fe_data_type type = FE_DATA_NOT_SET;
        fe_tensor_size_bytes(t, &bytes);
        fe_tensor_get_data_type(t, &type);
        out.bytes += static_cast<double>(bytes);
        if (i >= inputs) continue;
        if (is_float(type)) {
            std::vector<float> host(static_cast<size_t>(bytes) / fe_data_type_size(type));
            for (float &v : host) v = uniform(rng);
            st = fe_buffer_upload_float(buffer, host.data(), static_cast<int64_t>(host.size()), type);
        } else {
            // 127 is 1.0 as an fp8_e8m0 scale; zero suits every integer role.
            st = fe_buffer_fill_bytes(buffer, type == FE_DATA_FP8_E8M0 ? 127 : 0);
        }
    }
    return st;
}

fe_status run(fe_graph *graph, fe_handle *handle, Bindings &b, int times) {
    fe_status st = FE_OK;
    for (int i = 0; i < times && st == FE_OK; ++i)
        st = fe_graph_execute_buffers(graph, handle, b.tensors.data(), b.buffers.data(), b.tensors.size(), nullptr);
    return st == FE_OK ? fe_handle_synchronize(handle) : st;
}

// Median seconds per execution: each sample times `repeat` back-to-back executions and one
// synchronization, with `repeat` chosen so a sample lasts about a millisecond (the
// synchronization's own cost then hardly counts).
fe_status time_graph(fe_graph *graph, fe_handle *handle, Bindings &b, int warmup, int iterations, double *out) {
    fe_status st = run(graph, handle, b, std::max(warmup, 1));
    if (st != FE_OK) return st;
    Clock::time_point start = Clock::now();
    st = run(graph, handle, b, 1);
    if (st != FE_OK) return st;
    double once = std::chrono::duration<double>(Clock::now() - start).count();
    int repeat = static_cast<int>(std::min(1000.0, std::max(1.0, std::ceil(1e-3 / std::max(once, 1e-9)))));
    std::vector<double> samples;
    for (int i = 0; i < iterations; ++i) {
        start = Clock::now();
        st = run(graph, handle, b, repeat);
        if (st != FE_OK) return st;
        samples.push_back(std::chrono::duration<double>(Clock::now() - start).count() / repeat);
    }
    std::sort(samples.begin(), samples.end());
    size_t n = samples.size();
    *out = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    return FE_OK;
}

// One graph's row: what the table prints and the --json entry holds.
struct Row {
    int graph = 0, graphs_in_file = 0;
    std::string name;  // "" when the graph was not read
    double seconds = 0, flops = 0, bytes = 0;
    long long workspace = 0, plans = 0;
    std::string engine;
    int exit_code = kExitOk;
    std::string status, error;
};

void print_json(const std::string &path, long long gpu, const std::string &gpu_name, long long iterations,
                long long warmup, long long autotune, long long knob_search, const std::vector<Row> &rows, int worst) {
    JsonWriter j;
    j.begin_object();
    j.key("file").string(path);
    j.key("gpu").begin_object().key("index").integer(gpu);
    if (gpu_name.empty()) j.key("name").null();
    else j.key("name").string(gpu_name);
    j.end();
    j.key("iterations").integer(iterations);
    j.key("warmup").integer(warmup);
    if (autotune > 0) j.key("autotune").integer(autotune);
    else j.key("autotune").null();
    if (knob_search > 0) j.key("knob_search").integer(knob_search);
    else j.key("knob_search").null();
    j.key("graphs").begin_array();
    for (const Row &r : rows) {
        bool ok = r.exit_code == kExitOk;
        j.begin_object();
        j.key("graph").integer(r.graph);
        j.key("graphs_in_file").integer(r.graphs_in_file);
        if (r.name.empty()) j.key("name").null();
        else j.key("name").string(r.name);
        j.key("ok").boolean(ok);
        if (ok) {
            j.key("median_seconds").number(r.seconds);
            j.key("flops").integer(std::llround(r.flops));
            if (r.flops > 0) j.key("tflops").number(r.flops / r.seconds / 1e12);
            else j.key("tflops").null();
            j.key("bytes").integer(std::llround(r.bytes));
            j.key("gb_per_second").number(r.bytes / r.seconds / 1e9);
            j.key("workspace_bytes").integer(r.workspace);
            j.key("engine").string(r.engine);
            if (autotune > 0) j.key("plans_timed").integer(r.plans);
            else j.key("plans_timed").null();
            j.key("error").null();
        } else {
            j.key("error").begin_object();
            j.key("exit_code").integer(r.exit_code);
            j.key("status").string(r.status);
            j.key("message").string(r.error);
            j.end();
        }
        j.end();
    }
    j.end();
    j.key("exit_code").integer(worst);
    j.end();
    std::fputs(j.text().c_str(), stdout);
}

std::string time_text(double seconds) {
    char text[32];
    if (seconds < 1e-3) std::snprintf(text, sizeof text, "%.1f us", seconds * 1e6);
    else std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
    return text;
}

}  // namespace

int bench_command(int argc, char **argv) {
    Args args;
    int rc = parse_or_exit("bench", kHelp, argc, argv,
                           {{"--autotune", nullptr, true},
                            {"--knob-search", nullptr, true},
                            {"--iterations", nullptr, true},
                            {"--warmup", nullptr, true},
                            {"--gpu", nullptr, true},
                            {"--json", nullptr, false}},
                           args);
    if (rc >= 0) return rc;
    long long autotune = 0, knob_search = 0, iterations = 0, warmup = 0, gpu = 0;
    std::string error;
    if (!args.integer("--autotune", 0, 1, 1000, &autotune, error) ||
        !args.integer("--knob-search", 0, 1, 100, &knob_search, error) ||
        !args.integer("--iterations", 20, 1, 100000, &iterations, error) ||
        !args.integer("--warmup", 3, 0, 100000, &warmup, error) || !args.integer("--gpu", 0, 0, 1 << 20, &gpu, error))
        return fail("bench", kExitBadInput, error);
    if (knob_search > 0 && autotune == 0)
        return fail("bench", kExitBadInput, "--knob-search extends autotuning: give --autotune N too");
    if (args.positional.size() != 1)
        return fail("bench", kExitBadInput,
                    args.positional.empty() ? "give a graph file (see 'cudnnfe bench --help')"
                                            : "unexpected argument '" + args.positional[1] + "'");
    bool json = args.has("--json");
    const std::string &path = args.positional[0];
    std::string content;
    std::vector<GraphSource> sources;
    if (!read_file(path, content, error)) return fail("bench", kExitBadInput, error);

    // A benchmark needs the GPU before anything else is worth doing.
    std::string why;
    int32_t count = gpu_count(why);
    if (count < 0) return fail("bench", kExitEnvironment, "cannot look for a GPU: " + why);
    if (count == 0) {
        std::string problem = driver_problem();
        return fail("bench", kExitEnvironment,
                    problem.empty() ? "no GPU on this machine: bench executes graphs (to build plans for another GPU "
                                      "without one, use 'cudnnfe compile --device')"
                                    : problem + "; bench executes graphs (to build plans for a described GPU, use "
                                                "'cudnnfe compile --device GPU.json')");
    }
    if (gpu >= count)
        return fail("bench", kExitBadInput, "GPU " + std::to_string(gpu) + " does not exist (" + std::to_string(count) + " present)");
    if (!split_graph_file(content, sources, error)) return fail("bench", kExitBadInput, path + ": " + error);

    fe_handle *handle = nullptr;
    fe_status status = fe_handle_create(static_cast<int32_t>(gpu), &handle);
    if (status != FE_OK) return fail_status("bench", status, "");
    std::string gpu_name, properties;
    GpuDescription description;
    if (json && device_properties(static_cast<int32_t>(gpu), properties) == FE_OK &&
        read_gpu_description(properties, description, error))
        gpu_name = description.name;
    std::mt19937 rng(std::random_device{}());
    if (!json) std::printf("%-24s %12s %9s %9s %10s  %s\n", "graph", "median", "TFLOPS", "GB/s", "workspace", "engine");
    int worst = kExitOk;
    std::vector<Row> rows;
    for (const GraphSource &source : sources) {
        Row row;
        row.graph = source.index;
        row.graphs_in_file = source.count;
        auto refused = [&](fe_status st, const std::string &context) {
            row.status = fe_status_string(st);
            row.error = status_message(st, context);
            row.exit_code = fail("bench", exit_code_for(st), row.error);
            worst = std::max(worst, row.exit_code);
            rows.push_back(row);
        };
        fe_graph *graph = nullptr;
        status = load_graph(source, &graph);
        if (status != FE_OK) {
            refused(status, where(path, source));
            continue;
        }
        const char *graph_name = "?";
        fe_graph_get_name(graph, &graph_name);
        row.name = graph_name;
        fe_build_options options = FE_BUILD_OPTIONS_INIT;
        if (autotune > 0) {
            options.autotune = 1;
            options.autotune_candidates = static_cast<int32_t>(autotune);
            options.autotune_knob_search = static_cast<int32_t>(knob_search);
        }
        Bindings bindings;
        status = fe_graph_build(graph, handle, &options);
        if (status == FE_OK) status = bind(graph, static_cast<int32_t>(gpu), rng, bindings);
        if (status == FE_OK)
            status = time_graph(graph, handle, bindings, static_cast<int>(warmup), static_cast<int>(iterations), &row.seconds);
        if (status != FE_OK) {
            refused(status, where(path, source) + " (" + row.name + ")");
            fe_graph_destroy(graph);
            continue;
        }
        std::string graph_text;
        row.flops = graph_json(graph, graph_text) == FE_OK ? graph_flops(graph_text) : 0;
        row.bytes = bindings.bytes;
        int64_t workspace = 0;
        size_t plans = 0;
        fe_graph_workspace_size(graph, &workspace);
        fe_graph_plan_count(graph, &plans);
        row.workspace = workspace;
        row.plans = static_cast<long long>(plans);
        const char *tag = "?";
        fe_graph_engine_tag(graph, &tag);
        row.engine = tag;
        fe_graph_destroy(graph);
        rows.push_back(row);
        if (json) continue;
        char tflops[32] = "-";
        if (row.flops > 0) std::snprintf(tflops, sizeof tflops, "%.1f", row.flops / row.seconds / 1e12);
        std::string engine = row.engine;
        if (autotune > 0) engine += " (best of " + std::to_string(plans) + ")";
        std::printf("%-24s %12s %9s %9.1f %10s  %s\n", row.name.c_str(), time_text(row.seconds).c_str(), tflops,
                    row.bytes / row.seconds / 1e9, bytes_text(static_cast<double>(workspace)).c_str(), engine.c_str());
        std::fflush(stdout);
    }
    fe_handle_destroy(handle);
    if (json) print_json(path, gpu, gpu_name, iterations, warmup, autotune, knob_search, rows, worst);
    return worst;
}

}  // namespace tool
