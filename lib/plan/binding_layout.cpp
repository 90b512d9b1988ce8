#include "plan/binding_layout.hpp"

#include <algorithm>
#include <climits>

#include "common/error.hpp"
#include "graph/tensor.hpp"

namespace fe {

namespace {

// An input that only views (slices) read: cuDNN's operation graph has no tensor for it.
bool read_only_through_views(const fe_graph &graph, const fe_tensor *t) {
    if (!t->is_input()) return false;
    bool read = false;
    for (const auto &node : graph.nodes)
        for (const fe_tensor *in : node->inputs)
            if (in == t) {
                if (!node->only_views_inputs()) return false;
                read = true;
            }
    return read;
}

}  // namespace

namespace {

// The (input slot, output slot) pairs whose ops document them as updated in place, sorted.
std::vector<std::pair<int32_t, int32_t>> in_place_slot_pairs(const fe_graph &graph) {
    std::vector<std::pair<int32_t, int32_t>> pairs;
    for (const auto &node : graph.nodes)
        for (const auto &ports : node->in_place_ports()) {
            const fe_tensor *in = node->inputs.at(ports.first), *out = node->outputs.at(ports.second);
            if (in && in->slot >= 0 && out->slot >= 0) pairs.emplace_back(in->slot, out->slot);
        }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

}  // namespace

void finish_binding_layout(fe_graph &graph, BuildState &state) {
    state.executable.input_slots = graph.inputs.size();
    state.executable.shared_slots = in_place_slot_pairs(graph);
    for (const WorkspaceTensor &w : state.executable.workspace_tensors) state.executable.uids.push_back(w.uid);
    for (SliceView &v : state.executable.slice_views) {
        auto it = std::lower_bound(state.executable.uid_to_slot.begin(), state.executable.uid_to_slot.end(),
                                   std::make_pair(v.source_uid, INT32_MIN));
        FE_CHECK(it != state.executable.uid_to_slot.end() && it->first == v.source_uid, FE_STATUS_VALIDATION,
                 "graph '%s': a view points into uid %lld, which is not one of its inputs or outputs", graph.name.c_str(),
                 static_cast<long long>(v.source_uid));
        v.source_slot = it->second;
        int64_t span = state.executable.slot_bytes[static_cast<size_t>(v.source_slot)];
        FE_CHECK(v.byte_offset >= 0 && (span == 0 || v.byte_offset < span), FE_STATUS_VALIDATION,
                 "graph '%s': a slice starts %lld bytes into '%s', past its end", graph.name.c_str(),
                 static_cast<long long>(v.byte_offset), state.executable.slots[static_cast<size_t>(v.source_slot)]->name.c_str());
        state.executable.uids.push_back(v.uid);
    }
    state.executable.pack_positions.clear();
    state.executable.pack_uids.clear();
    std::vector<bool> unseen(state.executable.slots.size());
    bool any = false;
    for (size_t i = 0; i < state.executable.slots.size(); ++i) any |= (unseen[i] = read_only_through_views(graph, state.executable.slots[i]));
    if (!any) return;
    for (size_t i = 0; i < state.executable.uids.size(); ++i) {
        if (i < unseen.size() && unseen[i]) continue;
        state.executable.pack_positions.push_back(static_cast<int32_t>(i));
        state.executable.pack_uids.push_back(state.executable.uids[i]);
    }
}

}  // namespace fe
