// Setters of the peer statistics buffers of a synchronized batchnorm (forward and backward). The
// bindings fill the arrays only through them, so a count means the same in every language.
#include <cstddef>

#include "api/guard.hpp"

namespace fe {

namespace {

template <typename Options>
void set_peer_stats(Options *options, size_t count, fe_tensor *const *peer_stats) {
    FE_CHECK(options->struct_size >= offsetof(Options, peer_stats) + sizeof options->peer_stats,
             FE_STATUS_INVALID_ARGUMENT,
             "options.struct_size is %u: these options predate peer statistics (initialize them with the "
             "_INIT macro of this header)",
             options->struct_size);
    FE_CHECK(count <= FE_MAX_PEER_STATS, FE_STATUS_INVALID_ARGUMENT,
             "%zu peer statistics buffers; at most %d GPUs synchronize one batchnorm (FE_MAX_PEER_STATS)", count,
             FE_MAX_PEER_STATS);
    FE_CHECK(count == 0 || peer_stats != nullptr, FE_STATUS_NULL_POINTER, "argument 'peer_stats' is NULL");
    for (size_t i = 0; i < count; ++i)
        FE_CHECK(peer_stats[i] != nullptr, FE_STATUS_NULL_POINTER, "peer_stats[%zu] is NULL", i);
    for (size_t i = 0; i < FE_MAX_PEER_STATS; ++i) options->peer_stats[i] = i < count ? peer_stats[i] : nullptr;
    options->peer_stats_count = count;
}

}  // namespace

}  // namespace fe

FE_EXPORT fe_status fe_batchnorm_options_set_peer_stats(fe_batchnorm_options *options, size_t count,
                                                        fe_tensor *const *peer_stats) {
    return fe::guard("fe_batchnorm_options_set_peer_stats", [&] {
        FE_REQUIRE(options);
        fe::set_peer_stats(options, count, peer_stats);
    });
}

FE_EXPORT fe_status fe_norm_backward_options_set_peer_stats(fe_norm_backward_options *options, size_t count,
                                                            fe_tensor *const *peer_stats) {
    return fe::guard("fe_norm_backward_options_set_peer_stats", [&] {
        FE_REQUIRE(options);
        fe::set_peer_stats(options, count, peer_stats);
    });
}
