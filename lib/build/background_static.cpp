#include "build/background_static.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "build/build_graph.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/build_state.hpp"
#include "runtime/handle.hpp"
#include "serial/graph_json.hpp"

namespace fe {

struct BackgroundBuild {
    // A handle of its own on the graph's GPU (the user's is used by one thread at a time), kept
    // while its plan may run (declared first, so that it outlives the plan); the user's cache
    // directory settings.
    std::unique_ptr<fe_handle> handle;
    // The static build: the graph again (from its JSON), the options it is built with and the
    // strings and arrays they point to.
    std::unique_ptr<fe_graph> clone;
    fe_build_options options = FE_BUILD_OPTIONS_INIT;
    std::vector<fe_heur_mode> modes;
    std::string deselect_engines;
    int32_t device = 0;
    fe_handle::CacheDirectory cache_mode = fe_handle::CacheDirectory::Unset;
    std::string cache_directory;
    int64_t cache_limit_bytes = 0;

    mutable std::mutex mutex;
    mutable std::condition_variable ended;
    bool done = false;
    fe_status status = FE_OK;
    std::string message;
    std::thread worker;
    // Set when the graph goes: a build still waiting for its turn does not start.
    std::atomic<bool> cancelled{false};

    ~BackgroundBuild() {
        cancelled.store(true);
        if (worker.joinable()) worker.join();
    }
    void finish(fe_status s, const std::string &why) {
        std::lock_guard<std::mutex> lock(mutex);
        done = true;
        status = s;
        message = why;
        ended.notify_all();
    }
};

namespace {

// Background builds compile kernels on the CPU: two at a time leave the process's other threads
// (the serving loop) their cores.
class BuildSlots {
  public:
    // False, taking no slot, once `cancelled` is set while waiting.
    bool acquire(const std::atomic<bool> &cancelled) {
        std::unique_lock<std::mutex> lock(mutex_);
        while (running_ >= kMax) {
            if (cancelled.load()) return false;
            free_.wait_for(lock, std::chrono::milliseconds(10));
        }
        ++running_;
        return true;
    }
    void release() {
        std::lock_guard<std::mutex> lock(mutex_);
        --running_;
        free_.notify_one();
    }

  private:
    static constexpr int kMax = 2;
    std::mutex mutex_;
    std::condition_variable free_;
    int running_ = 0;
};

BuildSlots &build_slots() {
    static BuildSlots slots;
    return slots;
}

// The static plan binds every tensor where the built plan does (the same slots, uids and sizes:
// both graphs number their tensors in the same order); it then names the graph's own tensors and
// becomes the plan execute may switch to.
void publish(fe_graph &graph, BackgroundBuild &b) {
    ExecutablePlan &fast = b.clone->build->executable;
    const ExecutablePlan &built = *graph.executable();
    FE_CHECK(fast.slots.size() == built.slots.size() && fast.uid_to_slot == built.uid_to_slot &&
                 fast.slot_bytes == built.slot_bytes,
             FE_STATUS_INTERNAL, "graph '%s': its static plan binds %zu tensors differently from its built plan",
             graph.name.c_str(), fast.slots.size());
    for (size_t i = 0; i < fast.slots.size(); ++i) {
        FE_CHECK(fast.slots[i]->name == built.slots[i]->name, FE_STATUS_INTERNAL,
                 "graph '%s': its static plan binds '%s' where the built plan binds '%s'", graph.name.c_str(),
                 fast.slots[i]->name.c_str(), built.slots[i]->name.c_str());
        fast.slots[i] = built.slots[i];
    }
    graph.static_plan.store(&fast, std::memory_order_release);
    FE_LOG_INFO("graph '%s': static plan %s ready (%s)", graph.name.c_str(), fast.chosen().tag.c_str(),
                b.clone->build->origin);
}

void build_in_background(fe_graph &graph, BackgroundBuild &b) {
    if (!build_slots().acquire(b.cancelled)) {
        b.finish(FE_STATUS_BAD_STATE, "the graph was destroyed or built again before its turn came");
        return;
    }
    try {
        b.handle.reset(create_handle(b.device));
        b.handle->cache_mode = b.cache_mode;
        b.handle->cache_directory = b.cache_directory;
        b.handle->cache_limit_bytes = b.cache_limit_bytes;
        build_graph(*b.clone, b.handle.get(), b.options);
        publish(graph, b);
        b.finish(FE_OK, "");
    } catch (const Error &e) {
        FE_LOG_WARN("graph '%s': the background static build failed: %s", graph.name.c_str(), e.what());
        b.finish(e.status(), e.what());
    } catch (const std::exception &e) {
        b.finish(FE_STATUS_INTERNAL, e.what());
    }
    build_slots().release();
}

}  // namespace

void start_background_static(fe_graph &graph, fe_handle &handle, const fe_build_options &o) {
    auto b = std::make_shared<BackgroundBuild>();
    b->options = o;
    b->options.kernel_cache = nullptr;
    b->options.background_static = 0;
    b->options.cache_key = nullptr;            // the caller's key names the graph as built
    b->options.device_properties_json = nullptr;  // the clone carries the graph's
    if (o.heur_modes) b->modes.assign(o.heur_modes, o.heur_modes + o.num_heur_modes);
    b->options.heur_modes = b->modes.empty() ? nullptr : b->modes.data();
    if (o.deselect_engines) b->deselect_engines = o.deselect_engines;
    b->options.deselect_engines = o.deselect_engines ? b->deselect_engines.c_str() : nullptr;
    b->device = handle.device;
    b->cache_mode = handle.cache_mode;
    b->cache_directory = handle.cache_directory;
    b->cache_limit_bytes = handle.cache_limit_bytes;
    graph.background = b;
    try {
        b->clone = graph_from_json(graph_to_json(graph));
        b->clone->device_properties_json = graph.device_properties_json;
        // A later process finds the plan a background build stored: no build, no wait.
        if (build_graph_from_cache(*b->clone, &handle, b->options)) {
            publish(graph, *b);
            b->finish(FE_OK, "");
            return;
        }
    } catch (const Error &e) {
        FE_LOG_WARN("graph '%s': no background static build: %s", graph.name.c_str(), e.what());
        b->finish(e.status(), e.what());
        return;
    }
    BackgroundBuild *raw = b.get();
    b->worker = std::thread([&graph, raw] { build_in_background(graph, *raw); });
}

void stop_background_static(fe_graph &graph) {
    graph.background.reset();  // waits for its worker
    graph.static_plan.store(nullptr, std::memory_order_release);
    graph.static_switched.store(false, std::memory_order_release);
}

fe_background_state background_state(const fe_graph &graph) {
    if (!graph.background) return FE_BACKGROUND_NONE;
    if (graph.static_switched.load(std::memory_order_acquire)) return FE_BACKGROUND_SWITCHED;
    if (graph.static_plan.load(std::memory_order_acquire)) return FE_BACKGROUND_READY;
    std::lock_guard<std::mutex> lock(graph.background->mutex);
    return graph.background->done ? FE_BACKGROUND_FAILED : FE_BACKGROUND_BUILDING;
}

void wait_background_static(const fe_graph &graph) {
    if (!graph.background) return;
    const BackgroundBuild &b = *graph.background;
    std::unique_lock<std::mutex> lock(b.mutex);
    b.ended.wait(lock, [&b] { return b.done; });
    if (b.status != FE_OK)
        FE_FAIL(b.status, "graph '%s': the background static build failed: %s", graph.name.c_str(), b.message.c_str());
}

}  // namespace fe
