// Resampling of the spatial dims (cuDNN's resample operations): max and average pooling, and
// nearest/bilinear upsampling, forward and backward. cuDNN describes window, stride and
// padding as fractions so that upsampling is a stride below one; pooling uses whole numbers and
// upsampling by a factor s is window = stride = 1/s.

// include/cudnnfe.h, section "Resampling and layout operations" (copied there by scripts/schema/generate_header.py):
// typedef enum fe_resample_mode FE_ENUM_BASE {
//     FE_RESAMPLE_MAXPOOL = 0,
//     FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING = 1, /* padded positions count in the divisor */
//     FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING = 2, /* only positions inside the image count */
//     FE_RESAMPLE_NEAREST = 3,                 /* upsampling (stride below 1 in cuDNN's terms) */
//     FE_RESAMPLE_BILINEAR = 4
// } fe_resample_mode;
//
// typedef enum fe_resample_padding FE_ENUM_BASE {
//     FE_RESAMPLE_PADDING_AUTO = 0,    /* -infinity for max pooling, zero otherwise */
//     FE_RESAMPLE_PADDING_ZERO = 1,
//     FE_RESAMPLE_PADDING_NEG_INF = 2,
//     FE_RESAMPLE_PADDING_EDGE = 3     /* repeat the edge value */
// } fe_resample_padding;
//
// typedef struct fe_resample_options {
//     uint32_t struct_size;
//     const char *name;
//     fe_resample_mode mode;                      /* default FE_RESAMPLE_MAXPOOL */
//     fe_resample_padding padding_mode;           /* default FE_RESAMPLE_PADDING_AUTO */
//     size_t spatial_dims;                        /* 0: x's rank - 2 (2 or 3 spatial dims) */
//     int64_t window[FE_MAX_SPATIAL_DIMS];        /* required (each >= 1) */
//     int64_t stride[FE_MAX_SPATIAL_DIMS];        /* default 1 */
//     int64_t pre_padding[FE_MAX_SPATIAL_DIMS];   /* default 0; below the window */
//     int64_t post_padding[FE_MAX_SPATIAL_DIMS];  /* default 0; below the window */
//     fe_data_type compute_data_type;             /* default: the graph's */
//     /* Max pooling, training: also return where each maximum came from (its position inside the
//      * window, index_data_type), for fe_graph_resample_backward. */
//     int32_t generate_index;
//     fe_data_type index_data_type;               /* default FE_DATA_INT8 */
// } fe_resample_options;
// #define FE_RESAMPLE_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_resample_options), NULL, FE_RESAMPLE_MAXPOOL, FE_RESAMPLE_PADDING_AUTO, 0,
//       {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, FE_DATA_NOT_SET, 0, FE_DATA_INT8 }
//
// /* Setters of the window, stride and padding, with fe_conv_options' rule: one value for every
//  * spatial dim, or one per spatial dim (2 or 3), which fixes options->spatial_dims. */
// FE_API fe_status fe_resample_options_set_window(fe_resample_options *options, size_t n,
//                                                 const int64_t *window);
// FE_API fe_status fe_resample_options_set_stride(fe_resample_options *options, size_t n,
//                                                 const int64_t *stride);
// /** Pre and post padding alike. */
// FE_API fe_status fe_resample_options_set_padding(fe_resample_options *options, size_t n,
//                                                  const int64_t *padding);
// FE_API fe_status fe_resample_options_set_pre_padding(fe_resample_options *options, size_t n,
//                                                      const int64_t *padding);
// FE_API fe_status fe_resample_options_set_post_padding(fe_resample_options *options, size_t n,
//                                                       const int64_t *padding);
//
// /** Resampling of the spatial dims (cuDNN's resample operation): max or average pooling.
//  *  x [N, C, spatial...] (2 or 3 spatial dims), y [N, C, out...] with
//  *  out = (in + pre + post - window) / stride + 1, laid out like x. With options->generate_index
//  *  (max pooling only) out_index receives the index tensor (y's dims); otherwise out_index is
//  *  nullable and set to NULL. options is required (the window has no default).
//  *  Nearest and bilinear upsampling are refused at build with FE_STATUS_NOT_SUPPORTED on the
//  *  cuDNN versions that have no engine for them (through 9.19: docs/capabilities.md);
//  *  fe_graph_conv_transpose upsamples. */
// FE_API fe_status fe_graph_resample(fe_graph *graph, fe_tensor *x, const fe_resample_options *options,
//                                    fe_tensor **out_y, fe_tensor **out_index);
// /** Backward of fe_graph_resample: dx from dy with the forward's options. Average pooling needs
//  *  dy alone. Max pooling needs the forward's index (index, from generate_index); x and y are
//  *  nullable and only give dx's dims and layout. dx_dims (dx_ndims of them) are nullable when x is
//  *  given (dx takes x's dims); otherwise they are required, since with a stride above 1 several
//  *  image sizes give the same dy. dx ("<name>::DX") is laid out like dy. cuDNN 9.19 runs max
//  *  pooling backward channels-last only (the build fails saying so otherwise); max pooling
//  *  backward from x and y without the index, channels-last, is refused at build with
//  *  FE_STATUS_NOT_SUPPORTED on the cuDNN versions that crash on it (docs/capabilities.md). */
// FE_API fe_status fe_graph_resample_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *y,
//                                             fe_tensor *index, size_t dx_ndims, const int64_t *dx_dims,
//                                             const fe_resample_options *options, fe_tensor **out_dx);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/no_engine_causes.hpp"
#include "ops/ops.hpp"
#include "ops/resample.hpp"
#include "plan/lowering.hpp"
#include "schema/schema.hpp"
#include "schema/option_fields.hpp"
#include "ops/graph_ops.hpp"

namespace fe {

const char *resample_mode_name(fe_resample_mode mode) { return schema::enum_name("fe_resample_mode", mode); }

const char *resample_padding_name(fe_resample_padding padding) {
    return schema::enum_name("fe_resample_padding", padding);
}

namespace {

bool is_pooling(fe_resample_mode mode) {
    return mode == FE_RESAMPLE_MAXPOOL || mode == FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING ||
           mode == FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING;
}

// Checks of the options alone (and x's rank): the same for forward and backward.
void check_options(const fe_resample_options &o, size_t rank, const char *image) {
    FE_CHECK(rank == 4 || rank == 5, FE_STATUS_INVALID_ARGUMENT,
             "%s has rank %zu; resampling takes [N, C, spatial...] with 2 or 3 spatial dims", image, rank);
    size_t n = rank - 2;
    FE_CHECK(o.spatial_dims == 0 || o.spatial_dims == n, FE_STATUS_INVALID_ARGUMENT,
             "options.spatial_dims is %zu but %s has %zu spatial dims", o.spatial_dims, image, n);
    for (size_t i = 0; i < n; ++i) {
        if (is_pooling(o.mode)) {
            FE_CHECK(o.window[i] >= 1, FE_STATUS_INVALID_ARGUMENT,
                     "options.window[%zu] is %lld; pooling needs a window of at least 1 in every spatial dim", i,
                     static_cast<long long>(o.window[i]));
            FE_CHECK(o.pre_padding[i] < o.window[i] && o.post_padding[i] < o.window[i], FE_STATUS_INVALID_ARGUMENT,
                     "options.pre_padding[%zu] / post_padding[%zu] (%lld / %lld) must be below the window (%lld)", i,
                     i, static_cast<long long>(o.pre_padding[i]), static_cast<long long>(o.post_padding[i]),
                     static_cast<long long>(o.window[i]));
        } else {
            FE_CHECK(o.window[i] == 0 && o.pre_padding[i] == 0 && o.post_padding[i] == 0, FE_STATUS_INVALID_ARGUMENT,
                     "options.window / padding are set for %s upsampling, which takes only the factor "
                     "(options.stride)",
                     resample_mode_name(o.mode));
        }
    }
    FE_CHECK(!o.generate_index || o.mode == FE_RESAMPLE_MAXPOOL, FE_STATUS_INVALID_ARGUMENT,
             "options.generate_index is set for %s; only max pooling has an index", resample_mode_name(o.mode));
    if (o.generate_index) {
        fe_data_type t = o.index_data_type;
        FE_CHECK(t == FE_DATA_INT8 || t == FE_DATA_INT32 || t == FE_DATA_INT64, FE_STATUS_INVALID_ARGUMENT,
                 "options.index_data_type is %s; the index is int8, int32 or int64", data_type_name(t));
    }
}

// The result's spatial size for an input of `in` in spatial dim i.
int64_t resampled(const fe_resample_options &o, size_t i, int64_t in) {
    if (!is_pooling(o.mode)) return in * o.stride[i];
    int64_t span = in + o.pre_padding[i] + o.post_padding[i] - o.window[i];
    FE_CHECK(span >= 0, FE_STATUS_INVALID_ARGUMENT,
             "the window (%lld) is larger than spatial dim %zu with its padding (%lld)",
             static_cast<long long>(o.window[i]), i,
             static_cast<long long>(in + o.pre_padding[i] + o.post_padding[i]));
    return span / o.stride[i] + 1;
}

void check_float_type(const fe_tensor *t, const char *role) {
    fe_data_type d = t->data_type;
    FE_CHECK(d == FE_DATA_NOT_SET || d == FE_DATA_HALF || d == FE_DATA_BFLOAT16 || d == FE_DATA_FLOAT,
             FE_STATUS_INVALID_ARGUMENT, "%s '%s' is %s; resampling takes half, bfloat16 or float", role,
             t->name.c_str(), data_type_name(d));
}

std::string attributes_of(const fe_resample_options &o, size_t n) {
    auto list = [n](const int64_t *v) {
        std::string s = "[";
        for (size_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
        return s + "]";
    };
    std::string s = std::string("mode=") + resample_mode_name(o.mode);
    if (is_pooling(o.mode)) s += " window=" + list(o.window);
    s += " stride=" + list(o.stride);
    if (is_pooling(o.mode)) s += " padding=" + list(o.pre_padding) + "/" + list(o.post_padding);
    s += std::string(" padding_mode=") + resample_padding_name(o.padding_mode);
    if (o.generate_index) s += " index";
    return s;
}

void write_resample_attributes(AttributeWriter &out, const char *kind, const fe_resample_options &o, size_t n) {
    write_option_attributes(out, op_schema(kind), &o, n);
}

const Descriptor &lower_resample_descriptor(Lowering &lowering, const fe_resample_options &o, size_t n,
                                            fe_data_type compute) {
    std::vector<cudnnFraction_t> window(n), stride(n), pre(n), post(n);
    for (size_t i = 0; i < n; ++i) {
        if (is_pooling(o.mode)) {
            window[i] = {o.window[i], 1};
            stride[i] = {o.stride[i], 1};
        } else {  // upsampling by a factor s: window and stride 1/s
            window[i] = {1, o.stride[i]};
            stride[i] = {1, o.stride[i]};
        }
        pre[i] = {o.pre_padding[i], 1};
        post[i] = {o.post_padding[i], 1};
    }
    cudnnResampleMode_t mode = CUDNN_RESAMPLE_MAXPOOL;
    switch (o.mode) {
    case FE_RESAMPLE_MAXPOOL: mode = CUDNN_RESAMPLE_MAXPOOL; break;
    case FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING: mode = CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING; break;
    case FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING: mode = CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING; break;
    case FE_RESAMPLE_NEAREST: mode = CUDNN_RESAMPLE_NEAREST; break;
    case FE_RESAMPLE_BILINEAR: mode = CUDNN_RESAMPLE_BILINEAR; break;
    }
    cudnnPaddingMode_t padding = o.mode == FE_RESAMPLE_MAXPOOL ? CUDNN_NEG_INF_PAD : CUDNN_ZERO_PAD;
    if (o.padding_mode == FE_RESAMPLE_PADDING_ZERO) padding = CUDNN_ZERO_PAD;
    if (o.padding_mode == FE_RESAMPLE_PADDING_NEG_INF) padding = CUDNN_NEG_INF_PAD;
    if (o.padding_mode == FE_RESAMPLE_PADDING_EDGE) padding = CUDNN_EDGE_VAL_PAD;
    cudnnNanPropagation_t nan = CUDNN_PROPAGATE_NAN;
    int64_t count = static_cast<int64_t>(n);
    Descriptor d(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
    d.set(CUDNN_ATTR_RESAMPLE_MODE, CUDNN_TYPE_RESAMPLE_MODE, 1, &mode, "CUDNN_ATTR_RESAMPLE_MODE");
    d.set_data_type(CUDNN_ATTR_RESAMPLE_COMP_TYPE, compute, "CUDNN_ATTR_RESAMPLE_COMP_TYPE");
    d.set(CUDNN_ATTR_RESAMPLE_NAN_PROPAGATION, CUDNN_TYPE_NAN_PROPOGATION, 1, &nan,
          "CUDNN_ATTR_RESAMPLE_NAN_PROPAGATION");
    d.set(CUDNN_ATTR_RESAMPLE_PADDING_MODE, CUDNN_TYPE_PADDING_MODE, 1, &padding, "CUDNN_ATTR_RESAMPLE_PADDING_MODE");
    d.set_int64(CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, count, "CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS");
    d.set(CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, CUDNN_TYPE_FRACTION, count, window.data(), "CUDNN_ATTR_RESAMPLE_WINDOW_DIMS");
    d.set(CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, CUDNN_TYPE_FRACTION, count, pre.data(), "CUDNN_ATTR_RESAMPLE_PRE_PADDINGS");
    d.set(CUDNN_ATTR_RESAMPLE_POST_PADDINGS, CUDNN_TYPE_FRACTION, count, post.data(),
          "CUDNN_ATTR_RESAMPLE_POST_PADDINGS");
    d.set(CUDNN_ATTR_RESAMPLE_STRIDES, CUDNN_TYPE_FRACTION, count, stride.data(), "CUDNN_ATTR_RESAMPLE_STRIDES");
    return lowering.finalize_and_keep(std::move(d), "finalizing the resample descriptor");
}

// Why upsampling has no engine: refused on the versions known to have none, explained on others.
std::string upsampling_hint(const fe_resample_options &o) {
    if (is_pooling(o.mode)) return "";
    int64_t version = static_cast<int64_t>(cudnn().cudnnGetVersion());
    std::string why = refusal(Feature::upsampling, version);
    if (why.empty()) why = explanation(Feature::upsampling, version);
    return why + "; fe_graph_conv_transpose upsamples with a learned or fixed filter";
}

// Why cuDNN may have no engine for a resampling: the upsampling modes' own hint, then pooling's.
std::string pooling_hint(const fe_resample_options &o) {
    if (!is_pooling(o.mode)) return upsampling_hint(o);
    return explanation(pooling_no_engine_cause(o), cudnn().cudnnGetVersion());
}

// Refuse upsampling where cuDNN is known to refuse its descriptor, saying what to use instead.
void refuse_upsampling(const fe_resample_options &o) {
    FE_CHECK(is_pooling(o.mode) || refusal(Feature::upsampling, static_cast<int64_t>(cudnn().cudnnGetVersion())).empty(),
             FE_STATUS_NOT_SUPPORTED, "%s", upsampling_hint(o).c_str());
}

bool channels_last(const fe_tensor *t) {
    // [N, C, spatial...] with C the innermost (stride 1) of a tensor with more than one channel.
    return t->dims.size() >= 3 && t->dims[1] > 1 && t->strides.size() == t->dims.size() && t->strides[1] == 1;
}

// Pooling's known-bad combinations of layout, type and options (the capability table's pooling_
// entries), refused before cuDNN builds them.
void refuse_known_bad_pooling(Lowering &lowering, const fe_resample_options &o, size_t spatial, const fe_tensor *x,
                              bool forward) {
    if (!is_pooling(o.mode)) return;
    bool trivial = true, post_past_pre = false;
    for (size_t i = 0; i < spatial; ++i) {
        trivial = trivial && o.window[i] <= 1 && o.stride[i] <= 1;
        post_past_pre = post_past_pre || o.post_padding[i] > o.pre_padding[i];
    }
    // bfloat16 channels-last forward pooling with a real window or stride: wrong for channels not a
    // multiple of 8, and over 2 spatial dims without the index output whatever the channels (with
    // the index, or over 3 spatial dims, it was right).
    // One channel of stride 1 is read channels-last too.
    const bool channel_innermost = x->strides.size() == x->dims.size() && x->dims.size() >= 3 && x->strides[1] == 1;
    if (forward && x->data_type == FE_DATA_BFLOAT16 && channel_innermost && !trivial &&
        (x->dims[1] % 8 != 0 || (spatial == 2 && !o.generate_index)))
        lowering.require(Feature::pooling_bf16_channels_last);
    if (forward && o.generate_index && (!channels_last(x) || single_pixel(x->dims, false)))
        lowering.require(Feature::pooling_index_layout);
    if (o.mode == FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING && post_past_pre &&
        (!channels_last(x) || (forward && single_pixel(x->dims, false))))
        lowering.require(Feature::pooling_avg_post_padding_layout);
}

class Resample : public Node {
  public:
    Resample(fe_tensor *x, const fe_resample_options &o) : options_(o) {
        inputs = {x};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "resample"; }
    const char *input_port(size_t) const override { return "X"; }
    size_t spatial() const { return spatial_dims_of(inputs[0]); }

    void infer() override {
        const fe_tensor *x = inputs[0];
        check_options(options_, x->dims.size(), ("x '" + x->name + "'").c_str());
        check_float_type(x, "x");
        std::vector<int64_t> out = x->dims;
        for (size_t i = 0; i < spatial(); ++i) out[i + 2] = resampled(options_, i, x->dims[i + 2]);
        assign_inferred_shape(outputs[0], out, x->strides);
        if (options_.generate_index) assign_inferred_shape(outputs[1], out, x->strides);
    }

    std::string attributes() const override { return attributes_of(options_, spatial()); }
    void write_attributes(AttributeWriter &out) const override { write_resample_attributes(out, kind(), options_, spatial()); }
    std::string unsupported_hint() const override { return pooling_hint(options_); }

    void lower(Lowering &lowering) const override {
        refuse_upsampling(options_);
        refuse_known_bad_pooling(lowering, options_, spatial(), inputs[0], true);
        fe_data_type compute = lowering.compute_type(*this);
        const Descriptor &resample = lower_resample_descriptor(lowering, options_, spatial(), compute);
        Descriptor op(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, lowering.tensor(inputs[0]), "resample X");
        op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, lowering.tensor(outputs[0]), "resample Y");
        if (options_.generate_index)
            op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_IDXDESC, lowering.tensor(outputs[1]), "resample index");
        op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, resample, "resample descriptor");
        lowering.finalize_and_add(std::move(op), "finalizing resample '" + name + "'");
    }

  private:
    fe_resample_options options_;
};

// Inputs: DY, then the nullable X, Y and Index of the forward.
class ResampleBackward : public Node {
  public:
    ResampleBackward(fe_tensor *dy, fe_tensor *x, fe_tensor *y, fe_tensor *index, const std::vector<int64_t> &dx_dims,
                     const fe_resample_options &o)
        : options_(o), dx_dims_(dx_dims) {
        inputs = {dy, x, y, index};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "resample_backward"; }
    const char *input_port(size_t i) const override {
        static const char *const names[] = {"DY", "X", "Y", "Index"};
        return names[i < 4 ? i : 0];
    }
    size_t spatial() const { return spatial_dims_of(inputs[0]); }

    std::vector<int64_t> dx_dims() const { return inputs[1] ? inputs[1]->dims : dx_dims_; }

    void infer() override {
        const fe_tensor *dy = inputs[0], *x = inputs[1], *y = inputs[2], *index = inputs[3];
        check_options(options_, dy->dims.size(), ("dy '" + dy->name + "'").c_str());
        check_float_type(dy, "dy");
        std::vector<int64_t> dims = dx_dims();
        FE_CHECK(!dims.empty(), FE_STATUS_INVALID_ARGUMENT,
                 "dx's dims are unknown: give x or dx_dims (several image sizes give the same dy)");
        FE_CHECK(dims.size() == dy->dims.size(), FE_STATUS_INVALID_ARGUMENT, "dx has rank %zu but dy '%s' has rank %zu",
                 dims.size(), dy->name.c_str(), dy->dims.size());
        if (x && !dx_dims_.empty())
            FE_CHECK(x->dims == dx_dims_, FE_STATUS_INVALID_ARGUMENT, "dx_dims %s differ from x '%s' %s",
                     dims_string(dx_dims_).c_str(), x->name.c_str(), dims_string(x->dims).c_str());
        std::vector<int64_t> expected = dims;
        for (size_t i = 0; i < spatial(); ++i) expected[i + 2] = resampled(options_, i, dims[i + 2]);
        FE_CHECK(expected == dy->dims, FE_STATUS_INVALID_ARGUMENT,
                 "dy '%s' is %s but the forward of an image of %s gives %s", dy->name.c_str(),
                 dims_string(dy->dims).c_str(), dims_string(dims).c_str(), dims_string(expected).c_str());
        for (const fe_tensor *t : {y, index})
            if (t)
                FE_CHECK(t->dims == dy->dims, FE_STATUS_INVALID_ARGUMENT, "'%s' is %s; it must have dy's dims %s",
                         t->name.c_str(), dims_string(t->dims).c_str(), dims_string(dy->dims).c_str());
        if (x) check_float_type(x, "x");
        if (y) check_float_type(y, "y");
        if (options_.mode == FE_RESAMPLE_MAXPOOL) {
            FE_CHECK(index || (x && y), FE_STATUS_INVALID_ARGUMENT,
                     "max pooling backward needs the forward's index (options.generate_index), or x and y");
        } else {
            FE_CHECK(!index, FE_STATUS_INVALID_ARGUMENT, "an index is given for %s, which has none",
                     resample_mode_name(options_.mode));
        }
        if (index) {
            fe_data_type t = index->data_type;
            FE_CHECK(t == FE_DATA_INT8 || t == FE_DATA_INT32 || t == FE_DATA_INT64, FE_STATUS_INVALID_ARGUMENT,
                     "index '%s' is %s; the index is int8, int32 or int64", index->name.c_str(), data_type_name(t));
        }
        assign_inferred_shape(outputs[0], dims, dy->strides);
    }

    std::string attributes() const override { return attributes_of(options_, spatial()); }
    void write_attributes(AttributeWriter &out) const override {
        write_resample_attributes(out, kind(), options_, spatial());
        out.field("dx_dims", dx_dims());
    }
    std::string unsupported_hint() const override {
        if (options_.mode == FE_RESAMPLE_MAXPOOL && !channels_last(inputs[0]))
            return explanation(Feature::max_pool_backward_layout, cudnn().cudnnGetVersion());
        return pooling_hint(options_);
    }

    void lower(Lowering &lowering) const override {
        refuse_upsampling(options_);
        // Some cuDNN versions crash in their heuristics on this combination instead of refusing it.
        // A single channel of stride 1 is channels-last to cuDNN (randomized case: dy [4, 1, 8, 2]
        // with strides [16, 1, 2, 1] crashed it; the same dy with the channel's stride 16 was refused).
        const fe_tensor *dy = inputs[0];
        const bool dy_reads_channels_last =
            channels_last(dy) || (dy->dims.size() >= 3 && dy->dims[1] == 1 && dy->strides[1] == 1);
        if (options_.mode == FE_RESAMPLE_MAXPOOL && !inputs[3] && dy_reads_channels_last) {
            std::string why = refusal(Feature::max_pool_backward_from_x_and_y_channels_last, cudnn().cudnnGetVersion());
            FE_CHECK(why.empty(), FE_STATUS_NOT_SUPPORTED, "%s; pass the forward's index", why.c_str());
        }
        refuse_known_bad_pooling(lowering, options_, spatial(), inputs[0], false);
        fe_data_type compute = lowering.compute_type(*this);
        const Descriptor &resample = lower_resample_descriptor(lowering, options_, spatial(), compute);
        Descriptor op(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DYDESC, lowering.tensor(inputs[0]), "resample backward DY");
        op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DXDESC, lowering.tensor(outputs[0]), "resample backward DX");
        // Average pooling's backward reads dy alone, but cuDNN's NCHW engine refuses to run without
        // addresses for x and y: without them, give it dx's and dy's (same shapes, never read).
        bool average = options_.mode != FE_RESAMPLE_MAXPOOL;
        const Descriptor *x = inputs[1] ? &lowering.tensor(inputs[1])
                              : average ? lowering.unread_alias(outputs[0], outputs[0]) : nullptr;
        const Descriptor *y = inputs[2] ? &lowering.tensor(inputs[2])
                              : average ? lowering.unread_alias(inputs[0], inputs[0]) : nullptr;
        if (x) op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC, *x, "resample backward X");
        if (y) op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_YDESC, *y, "resample backward Y");
        if (inputs[3])
            op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_IDXDESC, lowering.tensor(inputs[3]), "resample backward index");
        op.set_desc(CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DESC, resample, "resample descriptor");
        lowering.finalize_and_add(std::move(op), "finalizing resample backward '" + name + "'");
    }

  private:
    fe_resample_options options_;
    std::vector<int64_t> dx_dims_;
};

}  // namespace

static std::unique_ptr<Node> make_resample(fe_tensor *x, const fe_resample_options &options) {
    return std::make_unique<Resample>(x, options);
}

static std::unique_ptr<Node> make_resample_backward(fe_tensor *dy, fe_tensor *x, fe_tensor *y, fe_tensor *index,
                                             const std::vector<int64_t> &dx_dims,
                                             const fe_resample_options &options) {
    return std::make_unique<ResampleBackward>(dy, x, y, index, dx_dims, options);
}

Results add_resample(fe_graph &g, fe_tensor *x, const fe_resample_options &o) {
    std::vector<const char *> ports = {"Y"};
    if (o.generate_index) ports.push_back("Index");
    Results outputs = g.add_op(make_resample(x, o), o.name, "resample", ports);
    if (o.generate_index) {
        outputs[1]->data_type = o.index_data_type;
        outputs[1]->user_data_type = true;
    }
    return outputs;
}

Results add_resample_backward(fe_graph &g, fe_tensor *dy, fe_tensor *x, fe_tensor *y, fe_tensor *index,
                              const std::vector<int64_t> &dx_dims, const fe_resample_options &o) {
    FE_CHECK(x || !dx_dims.empty(), FE_STATUS_NULL_POINTER, "x and dx_dims are both NULL: dx's dims come from one of them");
    if (!dx_dims.empty()) {
        FE_CHECK(dx_dims.size() >= 4 && dx_dims.size() <= 5, FE_STATUS_INVALID_ARGUMENT,
                 "dx_dims has %zu dims; resampling takes [N, C, spatial...] with 2 or 3 spatial dims", dx_dims.size());
        for (size_t i = 0; i < dx_dims.size(); ++i)
            FE_CHECK(dx_dims[i] > 0, FE_STATUS_INVALID_ARGUMENT, "dx_dims[%zu] is %lld; dims must be positive", i,
                     static_cast<long long>(dx_dims[i]));
    }
    return g.add_op(make_resample_backward(dy, x, y, index, dx_dims, o), o.name, "resample_backward", {"DX"});
}

namespace {

const schema::Enum kResampleMode{"fe_resample_mode",
                         {{"FE_RESAMPLE_MAXPOOL", "maxpool", FE_RESAMPLE_MAXPOOL},
                          {"FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING", "avgpool_include_padding",
                           FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, "Padded positions count in the divisor."},
                          {"FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING", "avgpool_exclude_padding",
                           FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING, "Only positions inside the image count."},
                          {"FE_RESAMPLE_NEAREST", "nearest", FE_RESAMPLE_NEAREST,
                           "Upsampling (a stride below 1 in cuDNN's terms)."},
                          {"FE_RESAMPLE_BILINEAR", "bilinear", FE_RESAMPLE_BILINEAR}},
                         "Pooling or upsampling."};

const schema::Enum kResamplePadding{"fe_resample_padding",
                            {{"FE_RESAMPLE_PADDING_AUTO", "auto", FE_RESAMPLE_PADDING_AUTO,
                              "-infinity for max pooling, zero otherwise."},
                             {"FE_RESAMPLE_PADDING_ZERO", "zero", FE_RESAMPLE_PADDING_ZERO},
                             {"FE_RESAMPLE_PADDING_NEG_INF", "neg_inf", FE_RESAMPLE_PADDING_NEG_INF},
                             {"FE_RESAMPLE_PADDING_EDGE", "edge", FE_RESAMPLE_PADDING_EDGE, "Repeat the edge value."}},
                            "What the padding holds (auto: -infinity for max pooling, zero otherwise)."};

const schema::Struct kOptions = FE_SCHEMA_OPTIONS(fe_resample_options, FE_RESAMPLE_OPTIONS_INIT,
    "Resampling's mode, window, stride and padding.",
    FE_SCHEMA_NAME_FIELD(fe_resample_options),
    FE_SCHEMA_ENUM(fe_resample_options, mode, kResampleMode, "Pooling or upsampling."),
    FE_SCHEMA_ENUM(fe_resample_options, padding_mode, kResamplePadding, "What the padding holds."),
    FE_SCHEMA_FIELD(fe_resample_options, spatial_dims, spatial_count,
        "How many spatial dims the arrays give; 0: x's rank - 2."),
    FE_SCHEMA_RANGE(fe_resample_options, window, spatial_array, 0, 2147483647, "The window (pooling: required)."),
    FE_SCHEMA_RANGE(fe_resample_options, stride, spatial_array, 1, 2147483647, "The stride."),
    FE_SCHEMA_RANGE(fe_resample_options, pre_padding, spatial_array, 0, 2147483647, "Padding before, below the window."),
    FE_SCHEMA_RANGE(fe_resample_options, post_padding, spatial_array, 0, 2147483647, "Padding after, below the window."),
    FE_SCHEMA_COMPUTE_FIELD(fe_resample_options),
    FE_SCHEMA_FIELD(fe_resample_options, generate_index, flag,
        "Max pooling, training: also return where each maximum came from."),
    FE_SCHEMA_FIELD(fe_resample_options, index_data_type, data_type, "The index's type: int8, int32 or int64."));

const schema::Op kResample{"resample",
                   "fe_graph_resample",
                   "Resampling and layout operations",
                   {{"X", nullptr, "[N, C, spatial...], 2 or 3 spatial dims"}},
                   {{"Y", nullptr, "[N, C, out...], laid out like x"},
                    {"Index", "generate_index", "y's dims: the maximum's position in its window"}},
                   {},
                   &kOptions,
                   {},
                   true,
                   "Max or average pooling.",
                   nullptr,
                   nullptr,
                   {},
                   {"mode", "window", "stride"},
                   nullptr,
                   "resampling needs its mode and window (FE_RESAMPLE_OPTIONS_INIT)"};

const schema::Op kResampleBackward{"resample_backward",
                           "fe_graph_resample_backward",
                           "Resampling and layout operations",
                           {{"DY", nullptr, "y's gradient"},
                            {"X", "optional", "the forward input (gives dx's dims and layout)"},
                            {"Y", "optional", "the forward result"},
                            {"Index", "optional", "max pooling: the forward's index"}},
                           {{"DX", nullptr, "x's gradient, laid out like dy"}},
                           {{"dx_dims", schema::Type::dims_array, nullptr, false, "x's dims; required without X."}},
                           &kOptions,
                           {"name", "mode", "padding_mode", "spatial_dims", "window", "stride", "pre_padding",
                            "post_padding", "compute_data_type", "index_data_type"},
                           true,
                           "The gradient of a pooling with the same options.",
                           nullptr,
                           nullptr,
                           {},
                           {"mode", "window", "stride", "dx_dims"},
                           nullptr,
                           "the backward needs the forward's options"};

const std::vector<fe_tensor *> &add_described_resample(fe_graph &g, const schema::Call &c) {
    return add_resample(g, c.inputs[0], c.options_as<fe_resample_options>());
}

const std::vector<fe_tensor *> &add_described_resample_backward(fe_graph &g, const schema::Call &c) {
    return add_resample_backward(g, c.inputs[0], c.inputs[1], c.inputs[2], c.inputs[3], c.params[0].dims,
                                 c.options_as<fe_resample_options>());
}

const schema::Registration kRegistered[] = {schema::Registration(kResample, add_described_resample),
                                            schema::Registration(kResampleBackward, add_described_resample_backward)};

}  // namespace

}  // namespace fe
