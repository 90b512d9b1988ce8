// What lowering produces: the backend descriptors of the graph's tensors and operations, the
// finalized operation graph, and the constants and attention choices made on the way.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "backend/descriptor.hpp"
#include "graph/tensor.hpp"
#include "plan/target_gpu.hpp"

namespace fe {

struct Node;

// A constant made during lowering (e.g. -inf for a mask, an attention scale): passed by value.
struct InternalScalar {
    int64_t uid = 0;
    alignas(8) unsigned char bytes[8] = {0};
};

// How an attention node was lowered (fe_graph_describe and fe_graph_sdpa_implementation say it).
struct AttentionLowering {
    const Node *node = nullptr;
    bool native = false;
    bool automatic = false;  // chosen by AUTO (so a build may fall back to composite)
};

// A tensor as lowering gave it to cuDNN: what a plan read from disk must state for its uid.
struct LoweredTensor {
    int64_t uid = 0;
    std::vector<int64_t> dims, strides;
    fe_data_type type = FE_DATA_NOT_SET;
    bool is_virtual = false, by_value = false;
    int64_t alignment = 0;
    cudnnBackendDescriptor_t raw = nullptr;  // to find the tensors an operation references
};

struct LoweredGraph {
    std::deque<Descriptor> tensor_descriptors;  // deque: references stay valid as it grows
    std::vector<LoweredTensor> tensor_table;    // one per tensor descriptor
    std::unordered_map<const fe_tensor *, size_t> tensor_index;
    std::deque<Descriptor> attribute_descriptors;  // conv / pointwise / matmul / reduction
    std::vector<Descriptor> operations;
    Descriptor device_properties;  // set when building devicelessly
    Descriptor operation_graph;
    int64_t engine_count = 0;
    std::deque<InternalScalar> internal_scalars;  // deque: the addresses go into variant packs
    int64_t next_internal_uid = 0;                // uids of tensors made during lowering
    std::vector<AttentionLowering> attention;
    bool composite_attention_only = false;  // set when AUTO's native choice had no engine
    TargetGpu target;  // the GPU lowered for
    // Engines whose behaviour notes meet this mask (bit 1 << note) are not candidates for this
    // graph, for the reason given: an operation known to fail on them asked (Lowering::avoid_engines).
    uint64_t avoided_behavior_notes = 0;
    std::string avoided_because;
};

}  // namespace fe
