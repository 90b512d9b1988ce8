// Plans that cudnnfe built on an H100 (tests/deviceless/plans_built_on_h100/: one serialized
// graph per operation family, from the GPU suite and the examples) pass the check a plan read
// from disk gets against its graph. Without a GPU, cuDNN then cannot load the runtime-compiled
// ones (CUDA_DRIVER or NOT_SUPPORTED: their kernels need a driver); that is the only failure
// allowed here. A check that refuses
// a genuine plan would turn every cache entry of that family into a rebuild.
#include <dirent.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

const std::string kPlans = std::string(CUDNNFE_SOURCE_ROOT) + "/tests/deviceless/plans_built_on_h100";

std::vector<std::string> plan_files() {
    std::vector<std::string> out;
    if (DIR *d = opendir(kPlans.c_str())) {
        while (dirent *e = readdir(d)) {
            std::string name = e->d_name;
            if (name.size() > 8 && name.compare(name.size() - 8, 8, ".fegraph") == 0) out.push_back(name);
        }
        closedir(d);
    }
    return out;
}

class PlansBuiltOnH100 : public Deviceless {};

TEST_F(PlansBuiltOnH100, PassTheCheckAgainstTheirGraphs) {
    std::vector<std::string> files = plan_files();
    ASSERT_GE(files.size(), 18u) << "the committed plans are missing from " << kPlans;
    int loaded = 0, need_a_driver = 0;
    for (const std::string &name : files) {
        std::ifstream in(kPlans + "/" + name, std::ios::binary);
        std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        fe_deserialize_options o = FE_DESERIALIZE_OPTIONS_INIT;
        o.device_properties_json = json_.c_str();
        fe_graph *g = nullptr;
        fe_status s = fe_graph_deserialize(nullptr, bytes.data(), bytes.size(), &o, &g);
        std::string message = s == FE_OK ? "" : fe_last_error_message();
        fe_graph_destroy(g);
        if (s == FE_OK) {
            ++loaded;
        } else if (message.find("cuDNN cannot load it") != std::string::npos) {
            // cuDNN's own load comes after the check: the plan passed it.
            ++need_a_driver;
        } else {
            ADD_FAILURE() << name << ": " << message;
        }
    }
    std::printf("    %zu plans: %d loaded, %d passed the check and need a GPU to load\n", files.size(), loaded,
                need_a_driver);
}

}  // namespace
