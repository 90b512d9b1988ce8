// The enums and option structs of the API around the ops (creating graphs, building, logging,
// loading plans), described as the ops' are so that each language's binding generates them from
// `cudnnfe schema` alike.
#include "cudnnfe.h"
#include "schema/schema.hpp"

namespace fe {
namespace schema {

namespace {

const Enum kStatus{
    "fe_status",
    {{"FE_OK", "ok", FE_OK},
     {"FE_STATUS_INVALID_ARGUMENT", "invalid_argument", FE_STATUS_INVALID_ARGUMENT,
      "A value is out of range or inconsistent."},
     {"FE_STATUS_NULL_POINTER", "null_pointer", FE_STATUS_NULL_POINTER, "A required pointer argument is NULL."},
     {"FE_STATUS_BAD_STATE", "bad_state", FE_STATUS_BAD_STATE, "The call is out of order (execute before build)."},
     {"FE_STATUS_NOT_FOUND", "not_found", FE_STATUS_NOT_FOUND, "A name or uid that the graph does not have."},
     {"FE_STATUS_DUPLICATE", "duplicate", FE_STATUS_DUPLICATE, "A uid or binding given twice."},
     {"FE_STATUS_VALIDATION", "validation", FE_STATUS_VALIDATION,
      "The graph is inconsistent (shapes, data types, wiring)."},
     {"FE_STATUS_BUFFER_TOO_SMALL", "buffer_too_small", FE_STATUS_BUFFER_TOO_SMALL,
      "A buffer is smaller than the data it must hold."},
     {"FE_STATUS_MISALIGNED", "misaligned", FE_STATUS_MISALIGNED, "A device pointer is not 16-byte aligned."},
     {"FE_STATUS_NOT_SUPPORTED", "not_supported", FE_STATUS_NOT_SUPPORTED,
      "cuDNN has no engine or plan for this graph, or the library refuses it (the message says why)."},
     {"FE_STATUS_LIBRARY_UNAVAILABLE", "library_unavailable", FE_STATUS_LIBRARY_UNAVAILABLE,
      "cuDNN or the CUDA runtime could not be loaded."},
     {"FE_STATUS_CUDNN_ERROR", "cudnn_error", FE_STATUS_CUDNN_ERROR, "A cuDNN call failed; the message has its text."},
     {"FE_STATUS_CUDA_ERROR", "cuda_error", FE_STATUS_CUDA_ERROR,
      "A CUDA runtime call failed; the message has its text."},
     {"FE_STATUS_OUT_OF_MEMORY", "out_of_memory", FE_STATUS_OUT_OF_MEMORY, "Host or device allocation failed."},
     {"FE_STATUS_NO_DEVICE", "no_device", FE_STATUS_NO_DEVICE,
      "The CUDA runtime loaded but reports no usable GPU."},
     {"FE_STATUS_INTERNAL", "internal", FE_STATUS_INTERNAL, "A bug in cudnnfe; the message says where."},
     {"FE_STATUS_CANNOT_TELL", "cannot_tell", FE_STATUS_CANNOT_TELL,
      "Whether the graph is supported, or its plan builds, cannot be told on this machine: no CUDA driver, only "
      "the CUDA toolkit's stub, or a driver that sees no GPU (deviceless builds); judge or build it where a GPU "
      "and its driver are."}},
    "The status of a call: FE_OK, or why it failed."};

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

const Enum kBackgroundState{
    "fe_background_state",
    {{"FE_BACKGROUND_NONE", "none", FE_BACKGROUND_NONE, "No background build (none asked for)."},
     {"FE_BACKGROUND_BUILDING", "building", FE_BACKGROUND_BUILDING, "The static plan is being built."},
     {"FE_BACKGROUND_READY", "ready", FE_BACKGROUND_READY, "Built; the next execute that can switches to it."},
     {"FE_BACKGROUND_SWITCHED", "switched", FE_BACKGROUND_SWITCHED, "Executes run the static plan."},
     {"FE_BACKGROUND_FAILED", "failed", FE_BACKGROUND_FAILED,
      "The static build failed: executes keep the dynamic plan."}},
    "Where a graph's background static build stands (the build option background_static)."};

const Enum kNumericalNote{
    "fe_numerical_note",
    {{"FE_NUMERICAL_NOTE_TENSOR_CORE", "tensor_core", FE_NUMERICAL_NOTE_TENSOR_CORE},
     {"FE_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS", "down_convert_inputs", FE_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS},
     {"FE_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION", "reduced_precision_reduction",
      FE_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION},
     {"FE_NUMERICAL_NOTE_FFT", "fft", FE_NUMERICAL_NOTE_FFT},
     {"FE_NUMERICAL_NOTE_NONDETERMINISTIC", "nondeterministic", FE_NUMERICAL_NOTE_NONDETERMINISTIC,
      "Deselect it for bitwise-repeatable results."},
     {"FE_NUMERICAL_NOTE_WINOGRAD", "winograd", FE_NUMERICAL_NOTE_WINOGRAD},
     {"FE_NUMERICAL_NOTE_WINOGRAD_TILE_4X4", "winograd_tile_4x4", FE_NUMERICAL_NOTE_WINOGRAD_TILE_4X4},
     {"FE_NUMERICAL_NOTE_WINOGRAD_TILE_6X6", "winograd_tile_6x6", FE_NUMERICAL_NOTE_WINOGRAD_TILE_6X6},
     {"FE_NUMERICAL_NOTE_WINOGRAD_TILE_13X13", "winograd_tile_13x13", FE_NUMERICAL_NOTE_WINOGRAD_TILE_13X13},
     {"FE_NUMERICAL_NOTE_STRICT_NAN_PROP", "strict_nan_prop", FE_NUMERICAL_NOTE_STRICT_NAN_PROP}},
    "An engine's numerical notes (cuDNN's CUDNN_NUMERICAL_NOTE_*), one bit each of a mask.",
    true};

const Enum kBehaviorNote{
    "fe_behavior_note",
    {{"FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION", "runtime_compilation", FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION},
     {"FE_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8X32_REORDER", "requires_filter_int8x32_reorder",
      FE_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8X32_REORDER},
     {"FE_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8X32_REORDER", "requires_bias_int8x32_reorder",
      FE_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8X32_REORDER},
     {"FE_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API", "supports_cuda_graph_native_api",
      FE_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API, "Populating a CUDA graph works with this engine's plans."}},
    "An engine's behaviour notes (cuDNN's CUDNN_BEHAVIOR_NOTE_*), one bit each of a mask.",
    true};

const Enum kTensorReordering{
    "fe_tensor_reordering",
    {{"FE_TENSOR_REORDERING_NONE", "none", FE_TENSOR_REORDERING_NONE},
     {"FE_TENSOR_REORDERING_INT8X32", "int8x32", FE_TENSOR_REORDERING_INT8X32,
      "Rearranged for cuDNN's INT8x32 kernels (reorder_filter_int8x32 writes it)."}},
    "The order a tensor's values are stored in."};

const fe_graph_options kGraphDefaults = FE_GRAPH_OPTIONS_INIT;

const Struct kGraphOptions{
    "fe_graph_options",
    sizeof(fe_graph_options),
    &kGraphDefaults,
    {
        FE_SCHEMA_FIELD(fe_graph_options, name, name, "The graph's name; \"graph\" when absent."),
        FE_SCHEMA_FIELD(fe_graph_options, io_data_type, data_type,
                        "The type of inputs and outputs that do not carry their own (not_set: each carries its own)."),
        FE_SCHEMA_FIELD(fe_graph_options, intermediate_data_type, data_type,
                        "The type of virtual (intermediate) tensors (float unless set)."),
        FE_SCHEMA_FIELD(fe_graph_options, compute_data_type, data_type,
                        "The math type of operations that do not set their own (float unless set)."),
    },
    "A graph's name and default data types."};

const fe_deserialize_options kDeserializeDefaults = FE_DESERIALIZE_OPTIONS_INIT;

const Struct kDeserializeOptions{
    "fe_deserialize_options",
    sizeof(fe_deserialize_options),
    &kDeserializeDefaults,
    {
        FE_SCHEMA_ENUM(fe_deserialize_options, on_mismatch, kMismatchPolicy,
                       "What a version or GPU other than the plan's does (refuse unless set)."),
        FE_SCHEMA_FIELD(fe_deserialize_options, device_properties_json, name,
                        "Deviceless: load the plan for the GPU this cuDNN device JSON describes (the handle may then "
                        "be absent); the graph can be inspected and serialized again, not executed."),
    },
    "How a serialized graph is loaded: what a mismatch does, and for which GPU."};

const fe_build_options kBuildDefaults = FE_BUILD_OPTIONS_INIT;

const Struct kBuildOptions{
    "fe_build_options",
    sizeof(fe_build_options),
    &kBuildDefaults,
    {
        FE_SCHEMA_ENUM_AS(fe_build_options, heur_modes, enum_list, kHeurMode,
                          "The heuristics modes queried, in order (unset: a, then fallback)."),
        FE_SCHEMA_FIELD(fe_build_options, num_heur_modes, list_count, "How many heuristics modes there are."),
        FE_SCHEMA_ENUM(fe_build_options, policy, kBuildPolicy, "Which plans the build finalizes."),
        FE_SCHEMA_FIELD(fe_build_options, max_workspace_bytes, integer,
                        "Plans that need more workspace are skipped (below 0: no limit)."),
        FE_SCHEMA_FIELD(fe_build_options, device_properties_json, name,
                        "Deviceless: build for the GPU this cuDNN device JSON describes (the handle may then be "
                        "absent)."),
        FE_SCHEMA_FIELD(fe_build_options, use_plan_cache, flag,
                        "Reuse the plan of an identical graph built before in this process."),
        FE_SCHEMA_FIELD(fe_build_options, cache_key, name,
                        "Also register the built graph under this key of the caller's, for the graph from the cache."),
        FE_SCHEMA_FIELD(fe_build_options, autotune, flag,
                        "Time the candidates on the handle's GPU and keep the fastest (needs a GPU)."),
        FE_SCHEMA_FIELD(fe_build_options, autotune_candidates, integer,
                        "How many plans autotuning builds and times (0 or less: 8)."),
        FE_SCHEMA_FIELD(fe_build_options, autotune_knob_search, integer,
                        "Autotuning also times the configs one knob away from the fastest plans, for up to this many "
                        "rounds (0: off)."),
        FE_SCHEMA_ENUM_AS(fe_build_options, deselect_numerical_notes, flags, kNumericalNote,
                          "Engines with any of these notes are not built (nondeterministic, for repeatable results)."),
        FE_SCHEMA_ENUM_AS(fe_build_options, deselect_behavior_notes, flags, kBehaviorNote,
                          "Engines with any of these notes are not built."),
        FE_SCHEMA_ENUM_AS(fe_build_options, require_numerical_notes, flags, kNumericalNote,
                          "Only engines with all of these notes are built."),
        FE_SCHEMA_ENUM_AS(fe_build_options, require_behavior_notes, flags, kBehaviorNote,
                          "Only engines with all of these notes are built (supports_cuda_graph_native_api, to "
                          "populate CUDA graphs)."),
        FE_SCHEMA_FIELD(fe_build_options, deselect_engines, name_list,
                        "Engines not to build: engine names (\"eng6\": every knob setting of engine 6) and "
                        "engine-config tags (\"eng6_k24=26\": that setting only); a name of another form makes the "
                        "build fail (invalid argument)."),
        FE_SCHEMA_FIELD(fe_build_options, max_shared_memory_bytes, integer,
                        "Engine configs that use more than this many bytes of shared memory per block are not built "
                        "(0: no limit); configs cuDNN reports none for are kept."),
        FE_SCHEMA_FIELD(fe_build_options, deterministic, flag,
                        "Only engines that give bitwise-repeatable results (the same as deselecting "
                        "nondeterministic)."),
        FE_SCHEMA_FIELD(fe_build_options, build_threads, integer,
                        "Threads that finalize plans at the same time when several are built (policy all, "
                        "autotuning): 0 or 1 one at a time, n > 1 up to n (at most 64); the plans and their order "
                        "do not depend on it."),
        FE_SCHEMA_FIELD(fe_build_options, kernel_cache, kernel_cache,
                        "Build with dynamic shapes from this kernel cache (absent: without), sharing compiled "
                        "kernels with the other graphs built with it; the graph keeps its own reference to it."),
        FE_SCHEMA_FIELD(fe_build_options, sm_count_target, integer,
                        "An SM carveout: n > 0 asks heuristics for engine configs that run on n SMs, leaving the "
                        "others to work running beside the graph; cuDNN's norm engines honour it. 0: every SM. Not "
                        "with a kernel cache (its configs were chosen for every SM), nor below 0 (invalid "
                        "argument)."),
        FE_SCHEMA_FIELD(fe_build_options, background_static, flag,
                        "With a kernel cache: also build the static-shape plan on a background thread and execute "
                        "it once it is ready (the graph's background state says when); a static plan already in "
                        "the plan cache is taken at once. Needs a handle."),
    },
    "The one-call build's options: the plan search, the plan cache, autotuning and the engines taken."};

}  // namespace

std::vector<const Enum *> surface_enums() {
    return {&kStatus,       &kHeurMode,      &kBuildPolicy,  &kLogLevel,
            &kMismatchPolicy, &kNumericalNote, &kBehaviorNote, &kBackgroundState, &kTensorReordering};
}

std::vector<const Struct *> surface_structs() { return {&kGraphOptions, &kDeserializeOptions, &kBuildOptions}; }

}  // namespace schema
}  // namespace fe
