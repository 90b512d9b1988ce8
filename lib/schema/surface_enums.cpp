// The enums of the API around the ops (building, logging, loading plans), described as the ops'
// enums are so that each language's binding generates them from `cudnnfe schema` alike.
#include "cudnnfe.h"
#include "schema/schema.hpp"

namespace fe {
namespace schema {

namespace {

const Enum kHeurMode{"fe_heur_mode",
                     {{"FE_HEUR_MODE_INSTANT", "instant", FE_HEUR_MODE_INSTANT},
                      {"FE_HEUR_MODE_B", "b", FE_HEUR_MODE_B},
                      {"FE_HEUR_MODE_FALLBACK", "fallback", FE_HEUR_MODE_FALLBACK},
                      {"FE_HEUR_MODE_A", "a", FE_HEUR_MODE_A}},
                     "cuDNN's heuristics modes, which propose engine configurations."};

const Enum kBuildPolicy{"fe_build_policy",
                        {{"FE_BUILD_POLICY_HEURISTICS_CHOICE", "heuristics_choice", FE_BUILD_POLICY_HEURISTICS_CHOICE,
                          "Build candidates in order; keep the first that builds."},
                         {"FE_BUILD_POLICY_ALL", "all", FE_BUILD_POLICY_ALL,
                          "Build every supported candidate; use the first."}},
                        "Which plans a build finalizes."};

const Enum kLogLevel{"fe_log_level",
                     {{"FE_LOG_OFF", "off", FE_LOG_OFF},
                      {"FE_LOG_ERROR", "error", FE_LOG_ERROR},
                      {"FE_LOG_WARN", "warn", FE_LOG_WARN},
                      {"FE_LOG_INFO", "info", FE_LOG_INFO},
                      {"FE_LOG_DEBUG", "debug", FE_LOG_DEBUG}},
                     "The library's log levels (CUDNNFE_LOG_LEVEL sets the level at load)."};

const Enum kMismatchPolicy{"fe_mismatch_policy",
                           {{"FE_MISMATCH_REFUSE", "refuse", FE_MISMATCH_REFUSE,
                             "A plan from another cuDNN version or GPU fails, naming the mismatch."},
                            {"FE_MISMATCH_REBUILD", "rebuild", FE_MISMATCH_REBUILD,
                             "A plan from another cuDNN version or GPU is rebuilt from the graph it carries."}},
                           "What loading a serialized plan does with one made for another cuDNN version or GPU."};

}  // namespace

std::vector<const Enum *> surface_enums() { return {&kHeurMode, &kBuildPolicy, &kLogLevel, &kMismatchPolicy}; }

}  // namespace schema
}  // namespace fe
