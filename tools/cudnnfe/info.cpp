// cudnnfe info: what this machine offers, saying what is missing instead of failing.
#include <cstdio>

#include "cli.hpp"
#include "commands.hpp"
#include "gpu_description.hpp"

namespace tool {

namespace {

const char kHelp[] =
    "usage: cudnnfe info\n"
    "\n"
    "Print the versions of cudnnfe, cuDNN, the CUDA runtime and driver, and each GPU with its\n"
    "properties. A missing GPU, cuDNN or CUDA runtime is reported, not an error: exit code 0.\n";

// Deviceless plan building (from a GPU description) needs cuDNN 9.8 or later.
constexpr int64_t kDevicelessCudnn = 90800;

}  // namespace

int info_command(int argc, char **argv) {
    Args args;
    int rc = parse_or_exit("info", kHelp, argc, argv, {}, args);
    if (rc >= 0) return rc;
    if (!args.positional.empty()) return fail("info", kExitBadInput, "unexpected argument '" + args.positional[0] + "'");

    std::printf("cudnnfe %s\n", fe_version_string());
    if (fe_version() != FE_VERSION)
        std::printf("  (this program was built against the header of %d.%d.%d)\n", FE_VERSION_MAJOR, FE_VERSION_MINOR,
                    FE_VERSION_PATCH);

    int64_t cudnn = 0;
    bool have_cudnn = fe_cudnn_version(&cudnn) == FE_OK;
    if (have_cudnn)
        std::printf("cuDNN:          %s (deviceless plan building: %s)\n", cudnn_version_text(cudnn).c_str(),
                    cudnn >= kDevicelessCudnn ? "yes" : "no, it needs cuDNN 9.8 or later");
    else
        std::printf("cuDNN:          not available (%s)\n", fe_last_error_message());

    int32_t runtime = 0;
    bool have_runtime = fe_cuda_runtime_version(&runtime) == FE_OK;
    if (have_runtime) std::printf("CUDA runtime:   %s\n", cuda_version_text(runtime).c_str());
    else std::printf("CUDA runtime:   not available (%s)\n", fe_last_error_message());

    std::string why;
    int32_t gpus = have_runtime ? gpu_count(why) : -1;
    // The driver's version comes with a GPU's description (cuDNN reports it there).
    std::string driver = "unknown (no GPU to ask)";
    std::string listing;
    for (int32_t d = 0; d < gpus; ++d) {
        std::string json, error;
        GpuDescription gpu;
        if (device_properties(d, json) != FE_OK) {
            listing += "GPU " + std::to_string(d) + ": properties not available (" + fe_last_error_message() + ")\n";
            continue;
        }
        if (!read_gpu_description(json, gpu, error)) {
            listing += "GPU " + std::to_string(d) + ": " + error + "\n";
            continue;
        }
        if (gpu.driver_version > 0) driver = cuda_version_text(gpu.driver_version);
        listing += "GPU " + std::to_string(d) + ": " + gpu_headline(gpu) + "\n" + gpu_details(gpu, "  ");
    }
    std::printf("CUDA driver:    %s\n", driver.c_str());
    if (gpus < 0)
        std::printf("GPUs:           unknown (%s)\n", have_runtime ? why.c_str() : "no CUDA runtime");
    else if (gpus == 0)
        std::printf("GPUs:           none (plans can still be built for a GPU description: cudnnfe compile --device)\n");
    else
        std::printf("GPUs:           %d\n%s", gpus, listing.c_str());
    return kExitOk;
}

}  // namespace tool
