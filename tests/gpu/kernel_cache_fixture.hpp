// A GPU fixture with a kernel cache of its own, for the dynamic-shape tests.
#pragma once

#include "gpu_support.hpp"

namespace cudnnfe_test {

class KernelCacheGpu : public Gpu {
  protected:
    void SetUp() override {
        Gpu::SetUp();
        if (IsSkipped()) return;
        ASSERT_FE_OK(fe_kernel_cache_create(&cache_));
    }
    void TearDown() override {
        Gpu::TearDown();  // the graphs first: they hold the cache too
        fe_kernel_cache_destroy(cache_);
    }
    fe_kernel_cache *cache_ = nullptr;
};

}  // namespace cudnnfe_test
