// Timing finalized plans of one graph on its GPU, for autotuning: scratch inputs and outputs
// bound once, on a private stream (so a capture never takes in work of the caller's).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "backend/descriptor.hpp"
#include "graph/graph.hpp"
#include "plan/build_state.hpp"

struct fe_handle;

namespace fe {

class PlanTimer {
  public:
    // Sets the private stream on the handle's cuDNN handle until destruction.
    PlanTimer(const fe_graph &graph, fe_handle &handle, int32_t warmup, int32_t iterations);
    ~PlanTimer();
    PlanTimer(const PlanTimer &) = delete;
    PlanTimer &operator=(const PlanTimer &) = delete;

    // Whether cuDNN runs the plan (once, untimed): the knob search makes configs no heuristic
    // vouched for, and one that cuDNN refuses is skipped rather than failing the build.
    bool runs(const Plan &plan);

    // Cold: `warmup` untimed runs, then `iterations` single runs, each after an L2 flush;
    // their median in microseconds. Cheap, and it rarely overrates a memory-bound kernel.
    double time_cold(const Plan &plan);

    // Back to back: bursts of runs over rotating copies of the inputs into one set of outputs,
    // as a layer runs in a training loop (and as benchmarks time it), captured in a CUDA graph
    // so that launch gaps do not hide differences between short kernels; the median time per
    // run over the bursts. `cold_us` (the plan's cold time) sizes them (burst_shape). Without a
    // capture (a plan cuDNN will not run inside one), the bursts are issued eagerly.
    double time_back_to_back(const Plan &plan, double cold_us);

  private:
    static constexpr size_t kFlushBytes = size_t{128} << 20;  // more than twice the L2 of current GPUs
    static constexpr int kMaxInputCopies = 4;
    static constexpr int64_t kInputCopyBudget = int64_t{1} << 30;  // bytes for the extra copies, at most
    static constexpr size_t kPatternBytes = size_t{1} << 20;

    void fill(void *device, int64_t bytes, fe_data_type type);
    void release();  // waits for the stream, gives the handle its stream back, frees all
    void *allocate(int64_t bytes);      // throws OUT_OF_MEMORY
    void *try_allocate(int64_t bytes);  // nullptr when the GPU is out of memory
    void bind_workspace_for(const Plan &plan);  // grows the workspace when the plan needs more
    void bind_workspace(int64_t plan_workspace);
    void execute(const Plan &plan, const Descriptor &pack);
    // The events' time of what `enqueue` puts on the stream, in microseconds.
    template <typename Enqueue>
    double elapsed_us(Enqueue &&enqueue);
    // A CUDA graph of one burst, or nullptr when the plan will not be captured.
    void *capture_burst(const Plan &plan, int runs);

    const fe_graph &graph_;
    fe_handle &handle_;
    int32_t warmup_, iterations_;
    void *stream_ = nullptr;
    void *start_ = nullptr, *stop_ = nullptr;
    std::vector<void *> blocks_;                    // every device allocation, freed last
    std::vector<std::vector<void *>> slot_copies_;  // per copy, a pointer per slot (outputs shared)
    void *flush_ = nullptr;
    int64_t workspace_bytes_ = 0;
    std::vector<Descriptor> packs_;  // one variant pack per input copy
    std::map<fe_data_type, std::vector<unsigned char>> patterns_;  // host values per input type
};

}  // namespace fe
