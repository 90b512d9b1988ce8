// Setters of the per-spatial-dim arrays of fe_conv_options and fe_resample_options. The Java, C#
// and Go bindings fill these arrays only through them, so that a count means the same in every
// language: one value applies to every spatial dim whatever the image's rank (as PyTorch reads
// `padding=1`); 2 or 3 values are one per spatial dim and fix spatial_dims, so that values for
// another rank are refused instead of silently left at their defaults.
#include "api/guard.hpp"

namespace fe {

namespace {

template <typename Options>
void set_spatial_values(Options *options, size_t n, const int64_t *values, const char *what, int64_t *first,
                        int64_t *second = nullptr) {
    FE_CHECK(n >= 1 && n <= FE_MAX_SPATIAL_DIMS, FE_STATUS_INVALID_ARGUMENT,
             "%zu %s values; give 1 (every spatial dim) or one per spatial dim (2 or 3)", n, what);
    FE_CHECK(n == 1 || options->spatial_dims == 0 || options->spatial_dims == n, FE_STATUS_INVALID_ARGUMENT,
             "%s is given for %zu spatial dims but the options already have %zu", what, n, options->spatial_dims);
    FE_CHECK(values != nullptr, FE_STATUS_NULL_POINTER, "argument '%s' is NULL", what);
    size_t count = n == 1 ? static_cast<size_t>(FE_MAX_SPATIAL_DIMS) : n;
    for (size_t i = 0; i < count; ++i) {
        int64_t value = values[n == 1 ? 0 : i];
        first[i] = value;
        if (second) second[i] = value;
    }
    if (n > 1) options->spatial_dims = n;
}

}  // namespace

}  // namespace fe

using fe::guard;
using fe::set_spatial_values;

// One exported setter per array; `field` names the array in messages as the header names it.
#define FE_SPATIAL_SETTER(function, type, field, first, second)                 \
    FE_EXPORT fe_status function(type *options, size_t n, const int64_t *values) { \
        return guard(#function, [&] {                                           \
            FE_REQUIRE(options);                                                \
            set_spatial_values(options, n, values, field, first, second);       \
        });                                                                     \
    }

FE_SPATIAL_SETTER(fe_conv_options_set_padding, fe_conv_options, "padding", options->pre_padding, options->post_padding)
FE_SPATIAL_SETTER(fe_conv_options_set_pre_padding, fe_conv_options, "pre_padding", options->pre_padding, nullptr)
FE_SPATIAL_SETTER(fe_conv_options_set_post_padding, fe_conv_options, "post_padding", options->post_padding, nullptr)
FE_SPATIAL_SETTER(fe_conv_options_set_stride, fe_conv_options, "stride", options->stride, nullptr)
FE_SPATIAL_SETTER(fe_conv_options_set_dilation, fe_conv_options, "dilation", options->dilation, nullptr)
FE_SPATIAL_SETTER(fe_conv_options_set_output_padding, fe_conv_options, "output_padding", options->output_padding,
                  nullptr)
FE_SPATIAL_SETTER(fe_resample_options_set_window, fe_resample_options, "window", options->window, nullptr)
FE_SPATIAL_SETTER(fe_resample_options_set_stride, fe_resample_options, "stride", options->stride, nullptr)
FE_SPATIAL_SETTER(fe_resample_options_set_padding, fe_resample_options, "padding", options->pre_padding,
                  options->post_padding)
FE_SPATIAL_SETTER(fe_resample_options_set_pre_padding, fe_resample_options, "pre_padding", options->pre_padding,
                  nullptr)
FE_SPATIAL_SETTER(fe_resample_options_set_post_padding, fe_resample_options, "post_padding", options->post_padding,
                  nullptr)
