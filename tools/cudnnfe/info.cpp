// cudnnfe info: what this machine offers, saying what is missing instead of failing.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "gpu_description.hpp"
#include "json.hpp"

namespace tool {

namespace {

const char kHelp[] =
    "usage: cudnnfe info [--json]\n"
    "\n"
    "Print the versions of cudnnfe, cuDNN, the CUDA runtime and driver, and each GPU with its\n"
    "properties. A missing GPU, cuDNN, CUDA runtime or CUDA driver is reported, not an error:\n"
    "exit code 0.\n"
    "\n"
    "options:\n"
    "  --json   one JSON object instead of text\n";

// Deviceless plan building (from a GPU description) needs cuDNN 9.8 or later.
constexpr int64_t kDevicelessCudnn = 90800;

struct Gpu {
    int32_t index = 0;
    bool ok = false;
    std::string error;  // when !ok
    GpuDescription description;
};

// What info finds; printed as text or JSON.
struct Facts {
    bool have_cudnn = false, have_runtime = false;
    int64_t cudnn = 0;
    int32_t runtime = 0;
    std::string cudnn_error, runtime_error;
    std::string cudnn_file;  // the cuDNN library loaded (its path)
    int32_t gpu_count = -1;  // -1: unknown
    std::string gpu_count_error;
    std::vector<Gpu> gpus;
    long long driver_version = 0;  // from a GPU's description; 0: none to ask
    Driver driver = Driver::Usable;
};

// The file of a library this process has loaded whose name starts with `stem` ("libcudnn.so"), as
// the kernel maps it (so a user can tell which of several installed copies answered); "" if none.
std::string loaded_file(const std::string &stem) {
    std::FILE *maps = std::fopen("/proc/self/maps", "r");
    if (!maps) return "";
    std::string found;
    char line[4096];
    while (found.empty() && std::fgets(line, sizeof line, maps)) {
        const char *path = std::strchr(line, '/');
        if (!path) continue;
        std::string file(path);
        while (!file.empty() && (file.back() == '\n' || file.back() == ' ')) file.pop_back();
        const size_t slash = file.rfind('/');
        if (file.compare(slash + 1, stem.size(), stem) == 0) found = file;
    }
    std::fclose(maps);
    return found;
}

Facts gather() {
    Facts f;
    f.have_cudnn = fe_cudnn_version(&f.cudnn) == FE_OK;
    if (!f.have_cudnn) f.cudnn_error = fe_last_error_message();
    else f.cudnn_file = loaded_file("libcudnn.so");
    f.have_runtime = fe_cuda_runtime_version(&f.runtime) == FE_OK;
    if (!f.have_runtime) f.runtime_error = fe_last_error_message();
    if (f.have_runtime) f.gpu_count = gpu_count(f.gpu_count_error);
    else f.gpu_count_error = "no CUDA runtime";
    for (int32_t d = 0; d < f.gpu_count; ++d) {
        Gpu gpu;
        gpu.index = d;
        std::string json;
        if (device_properties(d, json) != FE_OK)
            gpu.error = std::string("properties not available (") + fe_last_error_message() + ")";
        else
            gpu.ok = read_gpu_description(json, gpu.description, gpu.error);
        // The driver's version comes with a GPU's description (cuDNN reports it there).
        if (gpu.ok && gpu.description.driver_version > 0) f.driver_version = gpu.description.driver_version;
        f.gpus.push_back(gpu);
    }
    f.driver = cuda_driver();
    return f;
}

void print_text(const Facts &f) {
    std::printf("cudnnfe %s\n", fe_version_string());
    if (fe_version() != FE_VERSION)
        std::printf("  (this program was built against the header of %d.%d.%d)\n", FE_VERSION_MAJOR, FE_VERSION_MINOR,
                    FE_VERSION_PATCH);
    if (f.have_cudnn) {
        std::printf("cuDNN:          %s (deviceless plan building: %s)\n", cudnn_version_text(f.cudnn).c_str(),
                    f.cudnn >= kDevicelessCudnn ? "yes" : "no, it needs cuDNN 9.8 or later");
        if (!f.cudnn_file.empty()) std::printf("  loaded from %s\n", f.cudnn_file.c_str());
    } else
        std::printf("cuDNN:          not available (%s)\n", f.cudnn_error.c_str());
    if (f.have_runtime) std::printf("CUDA runtime:   %s\n", cuda_version_text(f.runtime).c_str());
    else std::printf("CUDA runtime:   not available (%s)\n", f.runtime_error.c_str());
    std::printf("CUDA driver:    %s\n",
                f.driver_version > 0 ? cuda_version_text(f.driver_version).c_str() : driver_state_text().c_str());
    std::string problem = driver_problem();
    if (f.gpu_count < 0)
        std::printf("GPUs:           unknown (%s)\n", f.gpu_count_error.c_str());
    else if (f.gpu_count == 0)
        std::printf("GPUs:           none%s (plans can still be built for a GPU description: cudnnfe compile --device)\n",
                    problem.empty() ? "" : ": no CUDA driver");
    else
        std::printf("GPUs:           %d\n", f.gpu_count);
    for (const Gpu &gpu : f.gpus) {
        if (!gpu.ok) std::printf("GPU %d: %s\n", gpu.index, gpu.error.c_str());
        else
            std::printf("GPU %d: %s\n%s", gpu.index, gpu_headline(gpu.description).c_str(),
                        gpu_details(gpu.description, "  ").c_str());
    }
}

void print_json(const Facts &f) {
    JsonWriter j;
    j.begin_object();
    j.key("version").string(fe_version_string());
    char header[32];
    std::snprintf(header, sizeof header, "%d.%d.%d", FE_VERSION_MAJOR, FE_VERSION_MINOR, FE_VERSION_PATCH);
    j.key("header_version").string(header);
    j.key("cudnn").begin_object();
    j.key("available").boolean(f.have_cudnn);
    if (f.have_cudnn) j.key("version").string(cudnn_version_text(f.cudnn));
    else j.key("version").null();
    if (f.have_cudnn) j.key("deviceless_plan_building").boolean(f.cudnn >= kDevicelessCudnn);
    else j.key("deviceless_plan_building").null();
    if (f.cudnn_file.empty()) j.key("library").null();
    else j.key("library").string(f.cudnn_file);
    if (f.have_cudnn) j.key("error").null();
    else j.key("error").string(f.cudnn_error);
    j.end();
    j.key("cuda_runtime").begin_object();
    j.key("available").boolean(f.have_runtime);
    if (f.have_runtime) j.key("version").string(cuda_version_text(f.runtime));
    else j.key("version").null();
    if (f.have_runtime) j.key("error").null();
    else j.key("error").string(f.runtime_error);
    j.end();
    j.key("cuda_driver").begin_object();
    const char *state = f.driver == Driver::Usable ? "found" : f.driver == Driver::Missing ? "missing" : "stub";
    j.key("state").string(state);
    if (f.driver_version > 0) j.key("version").string(cuda_version_text(f.driver_version));
    else j.key("version").null();
    const DriverInfo &driver = driver_info();
    if (driver.library.empty()) j.key("library").null();
    else j.key("library").string(driver.library);
    if (driver.error.empty()) j.key("error").null();
    else j.key("error").string(driver.error);
    j.end();
    if (f.gpu_count >= 0) j.key("gpu_count").integer(f.gpu_count);
    else j.key("gpu_count").null();
    if (f.gpu_count >= 0) j.key("gpu_count_error").null();
    else j.key("gpu_count_error").string(f.gpu_count_error);
    j.key("gpus").begin_array();
    for (const Gpu &gpu : f.gpus) {
        const GpuDescription &g = gpu.description;
        j.begin_object();
        j.key("index").integer(gpu.index);
        if (!gpu.ok) {
            j.key("error").string(gpu.error);
            j.end();
            continue;
        }
        j.key("name").string(g.name);
        j.key("compute_capability").string(std::to_string(g.sm_version / 100) + "." + std::to_string(g.sm_version % 100 / 10));
        j.key("sm_version").integer(g.sm_version);
        j.key("sm_count").integer(g.sm_count);
        j.key("memory_bytes").integer(static_cast<long long>(g.memory_bytes));
        j.key("l2_cache_bytes").integer(static_cast<long long>(g.l2_bytes));
        j.key("shared_memory_per_block_optin_bytes").integer(static_cast<long long>(g.shared_per_block_optin));
        j.key("sm_clock_khz").integer(g.sm_clock_khz);
        j.key("memory_clock_khz").integer(g.memory_clock_khz);
        if (g.driver_version > 0) j.key("driver_version").string(cuda_version_text(g.driver_version));
        else j.key("driver_version").null();
        j.end();
    }
    j.end();
    j.end();
    std::fputs(j.text().c_str(), stdout);
}

}  // namespace

int info_command(int argc, char **argv) {
    Args args;
    int rc = parse_or_exit("info", kHelp, argc, argv, {{"--json", nullptr, false}}, args);
    if (rc >= 0) return rc;
    if (!args.positional.empty()) return fail("info", kExitBadInput, "unexpected argument '" + args.positional[0] + "'");
    Facts facts = gather();
    if (args.has("--json")) print_json(facts);
    else print_text(facts);
    return kExitOk;
}

}  // namespace tool
