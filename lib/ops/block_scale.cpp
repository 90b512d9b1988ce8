// Block scaling. MXFP8: quantize values in blocks along the last dim, each block with its own
// power-of-two scale (fp8_e8m0), and the inverse (Feature::block_scaling). General block
// scaling: dequantize blocks of the last two dims with float, half or bfloat16 scales, the
// operands of a block-scaled matmul (Feature::general_block_scaling).

// include/cudnnfe.h, section "Random numbers and block scaling" (copied there by scripts/schema/generate_header.py):
// /* Block scaling: values stored in blocks, each block with its own scale. MXFP8: blocks of
//  * `block_size` consecutive elements of the last dim with power-of-two (fp8_e8m0) scales. General
//  * block scaling (dequantize only): blocks of `block_rows` x `block_size` elements of the last
//  * two dims with float, half or bfloat16 scales, e.g. DeepSeek-style FP8 GEMM operands: A with
//  * 1 x 128 blocks, B with 128 x 128 blocks. */
// typedef struct fe_block_scale_options {
//     uint32_t struct_size;
//     const char *name;
//     fe_data_type compute_data_type;
//     int32_t block_size; /* elements per scale along the last dim; default 32 (MXFP8) */
//     /* Dequantize: elements per scale along the second-to-last dim; default 1 (blocks within a
//      * row). Above 1 the scales must be float, half or bfloat16 (general block scaling). */
//     int32_t block_rows;
// } fe_block_scale_options;
// #define FE_BLOCK_SCALE_OPTIONS_INIT { (uint32_t)sizeof(fe_block_scale_options), NULL, FE_DATA_NOT_SET, 32, 1 }
//
// /** Block-scale quantize: x [..., n] (float, half or bfloat16) into out_y [..., n] (fp8_e4m3
//  *  unless its type is set: fp8_e4m3 or fp8_e5m2) and out_scale [..., n / block_size]
//  *  (fp8_e8m0), both packed and owned by the graph ("<node>::Y", "<node>::Scale"). n must be a
//  *  multiple of block_size. x must have rank 4 or more as cuDNN sees it: a rank-3 (or lower)
//  *  quantize needs cuDNN's reordered F8_128x4 scale layout, which is not produced, and its build
//  *  fails with FE_STATUS_NOT_SUPPORTED saying so. options nullable. Needs the cuDNN version and
//  *  GPU generation docs/capabilities.md lists (block_scaling: cuDNN >= 9.7.0, Blackwell and
//  *  later): an older cuDNN fails the build with FE_STATUS_NOT_SUPPORTED naming the loaded
//  *  version; on Hopper (sm90) cuDNN has no MXFP8 engine and the support check says so. */
// FE_API fe_status fe_graph_block_scale_quantize(fe_graph *graph, fe_tensor *x,
//                                                const fe_block_scale_options *options,
//                                                fe_tensor **out_y, fe_tensor **out_scale);
// /** Block-scale dequantize: x times its block's scale into out_y ("<node>::Y", x's dims and
//  *  strides, owned by the graph, the graph's intermediate type unless set: set it to half or
//  *  bfloat16 before a matmul, which otherwise runs in float).
//  *  - MXFP8: x [..., n] (fp8_e4m3 or fp8_e5m2), scale [..., n / block_size] (fp8_e8m0); same cuDNN
//  *    and GPU requirements as fe_graph_block_scale_quantize.
//  *  - General (scale float, half or bfloat16): x [..., m, n] (fp8_e4m3, fp8_e5m2, half,
//  *    bfloat16, or int4/uint4 weights stored with m contiguous), scale [..., ceil(m / block_rows),
//  *    ceil(n / block_size)]; feeds a matmul in the same graph (block-scaled GEMM, weight-only
//  *    quantization with one scale per group of rows). cuDNN >= 9.11 (capability
//  *    general_block_scaling).
//  *  options nullable. */
// FE_API fe_status fe_graph_block_scale_dequantize(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
//                                                  const fe_block_scale_options *options,
//                                                  fe_tensor **out_y);

#include <cudnn_graph.h>

#include <string>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/graph_ops.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "schema/option_fields.hpp"
#include "schema/schema.hpp"

namespace fe {
namespace {

bool is_fp8(fe_data_type t) { return t == FE_DATA_FP8_E4M3 || t == FE_DATA_FP8_E5M2; }
bool is_general_scale(fe_data_type t) { return t == FE_DATA_FLOAT || t == FE_DATA_HALF || t == FE_DATA_BFLOAT16; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

class BlockScaleNode : public Node {
  public:
    BlockScaleNode(const char *kind, const fe_block_scale_options &o)
        : kind_(kind), block_size_(o.block_size), block_rows_(o.block_rows) {
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return kind_; }
    std::string attributes() const override {
        return block_rows_ == 1 ? format("block_size=%d", block_size_)
                                : format("block=%dx%d", block_rows_, block_size_);
    }
    void write_attributes(AttributeWriter &out) const override {
        fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
        o.block_size = block_size_;
        o.block_rows = block_rows_;
        write_option_attributes(out, op_schema(kind()), &o, 0);
    }
    std::string unsupported_hint() const override {
        return explanation(Feature::block_scaling, cudnn().cudnnGetVersion());
    }

  protected:
    // Dims of the scales: the last dim divided by the block size.
    std::vector<int64_t> scale_dims(const fe_tensor *x) const {
        FE_CHECK(block_size_ > 0, FE_STATUS_INVALID_ARGUMENT, "block_size is %d; it must be positive", block_size_);
        FE_CHECK(!x->dims.empty(), FE_STATUS_INVALID_ARGUMENT, "'%s' has no dims", x->name.c_str());
        int64_t n = x->dims.back();
        FE_CHECK(n % block_size_ == 0, FE_STATUS_INVALID_ARGUMENT,
                 "the last dim of '%s' is %lld, not a multiple of block_size %d", x->name.c_str(),
                 static_cast<long long>(n), block_size_);
        std::vector<int64_t> dims = x->dims;
        dims.back() = n / block_size_;
        return dims;
    }
    void check_scale_type(const fe_tensor *scale) const {
        FE_CHECK(scale->data_type == FE_DATA_FP8_E8M0, FE_STATUS_NOT_SUPPORTED,
                 "scale '%s' is %s; MXFP8 block scales are fp8_e8m0", scale->name.c_str(),
                 data_type_name(scale->data_type));
    }
    void set_common(Descriptor &op, cudnnBackendAttributeName_t precision, cudnnBackendAttributeName_t block,
                    fe_data_type compute) const {
        op.set_data_type(precision, compute, "block-scale math precision");
        int32_t size = block_size_;
        op.set(block, CUDNN_TYPE_INT32, 1, &size, "block-scale block size");
    }

    const char *kind_;
    int32_t block_size_, block_rows_;
};

class BlockScaleQuantize : public BlockScaleNode {
  public:
    BlockScaleQuantize(fe_tensor *x, const fe_block_scale_options &o) : BlockScaleNode("block_scale_quantize", o) {
        inputs = {x};
    }
    const char *input_port(size_t) const override { return "X"; }

    void infer() override {
        const fe_tensor *x = inputs[0];
        std::vector<int64_t> s = scale_dims(x);
        assign_inferred_shape(outputs[0], x->dims, packed_strides(x->dims));
        assign_inferred_shape(outputs[1], s, packed_strides(s));
    }

    void lower(Lowering &lowering) const override {
        const fe_tensor *x = inputs[0], *y = outputs[0];
        FE_CHECK(x->data_type == FE_DATA_FLOAT || x->data_type == FE_DATA_HALF || x->data_type == FE_DATA_BFLOAT16,
                 FE_STATUS_NOT_SUPPORTED, "X '%s' is %s; block-scale quantize reads float, half or bfloat16",
                 x->name.c_str(), data_type_name(x->data_type));
        FE_CHECK(is_fp8(y->data_type), FE_STATUS_NOT_SUPPORTED,
                 "Y '%s' is %s; MXFP8 quantize writes fp8_e4m3 or fp8_e5m2", y->name.c_str(),
                 data_type_name(y->data_type));
        check_scale_type(outputs[1]);
        std::vector<int64_t> dims, strides;
        lowering.lowered_shape(x, &dims, &strides);
        FE_CHECK(dims.size() != 3, FE_STATUS_NOT_SUPPORTED,
                 "cuDNN takes a rank-3 block-scale quantize only with its scales in the reordered F8_128x4 layout, "
                 "which this library does not produce; give X as rank 4 (e.g. [1, %lld, %lld, %lld])",
                 static_cast<long long>(dims[0]), static_cast<long long>(dims[1]), static_cast<long long>(dims[2]));
        lowering.require(Feature::block_scaling);
        Descriptor op(CUDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC, lowering.tensor(x), "block-scale quantize X");
        op.set_desc(CUDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC, lowering.tensor(y), "block-scale quantize Y");
        op.set_desc(CUDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC, lowering.tensor(outputs[1]),
                    "block-scale quantize scale");
        set_common(op, CUDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_MATH_PREC,
                   CUDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE, lowering.compute_type(*this));
        lowering.finalize_and_add(std::move(op), "finalizing block-scale quantize '" + name + "'");
    }
};

class BlockScaleDequantize : public BlockScaleNode {
  public:
    BlockScaleDequantize(fe_tensor *x, fe_tensor *scale, const fe_block_scale_options &o)
        : BlockScaleNode("block_scale_dequantize", o) {
        inputs = {x, scale};
    }
    const char *input_port(size_t i) const override { return i == 0 ? "X" : "Scale"; }

    // General block scaling: scales of any float type (MXFP8's are fp8_e8m0). An unset type
    // (resolved at validation) is taken as general.
    bool general() const { return inputs[1]->data_type != FE_DATA_FP8_E8M0; }

    void infer() override {
        const fe_tensor *x = inputs[0], *scale = inputs[1];
        std::vector<int64_t> s;
        if (general()) {
            FE_CHECK(block_size_ > 0 && block_rows_ > 0, FE_STATUS_INVALID_ARGUMENT,
                     "the blocks are %d x %d; both sizes must be positive", block_rows_, block_size_);
            FE_CHECK(x->dims.size() >= 2, FE_STATUS_INVALID_ARGUMENT,
                     "'%s' has %zu dims; general block scaling blocks the last two", x->name.c_str(), x->dims.size());
            s = x->dims;
            s[s.size() - 2] = ceil_div(s[s.size() - 2], block_rows_);
            s.back() = ceil_div(s.back(), block_size_);
        } else {
            FE_CHECK(block_rows_ == 1, FE_STATUS_INVALID_ARGUMENT,
                     "block_rows is %d: MXFP8 scales (fp8_e8m0) cover one row each; 2-D blocks take float, half or "
                     "bfloat16 scales",
                     block_rows_);
            s = scale_dims(x);
        }
        FE_CHECK(scale->dims == s, FE_STATUS_INVALID_ARGUMENT,
                 "scale '%s' is %s; for X %s and %d x %d blocks it must be %s", scale->name.c_str(),
                 dims_string(scale->dims).c_str(), dims_string(x->dims).c_str(), block_rows_, block_size_,
                 dims_string(s).c_str());
        assign_inferred_shape(outputs[0], x->dims, x->strides);
    }

    std::string unsupported_hint() const override {
        if (general() && block_rows_ == 1 && feeds_a_second_operand())
            return explanation(Feature::general_block_scaling_b_row_blocks, cudnn().cudnnGetVersion());
        return explanation(general() ? Feature::general_block_scaling : Feature::block_scaling,
                           cudnn().cudnnGetVersion());
    }

    void lower(Lowering &lowering) const override {
        if (general()) {
            lower_general(lowering);
            return;
        }
        const fe_tensor *x = inputs[0];
        FE_CHECK(is_fp8(x->data_type), FE_STATUS_NOT_SUPPORTED,
                 "X '%s' is %s; MXFP8 dequantize reads fp8_e4m3 or fp8_e5m2", x->name.c_str(),
                 data_type_name(x->data_type));
        check_scale_type(inputs[1]);
        lowering.require(Feature::block_scaling);
        Descriptor op(CUDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC, lowering.tensor(x), "block-scale dequantize X");
        op.set_desc(CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC, lowering.tensor(inputs[1]),
                    "block-scale dequantize scale");
        op.set_desc(CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC, lowering.tensor(outputs[0]),
                    "block-scale dequantize Y");
        set_common(op, CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_MATH_PREC,
                   CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE, lowering.compute_type(*this));
        lowering.finalize_and_add(std::move(op), "finalizing block-scale dequantize '" + name + "'");
    }

  private:
    // Whether the dequantized tensor is the second operand (B) of the operation that reads it.
    bool feeds_a_second_operand() const {
        for (const auto &node : outputs[0]->graph->nodes)
            if (node.get() != this && node->inputs.size() >= 2 && node->inputs[1] == outputs[0] && !node->is_pointwise())
                return true;
        return false;
    }

    void lower_general(Lowering &lowering) const {
        const fe_tensor *x = inputs[0], *scale = inputs[1];
        FE_CHECK(is_fp8(x->data_type) || x->data_type == FE_DATA_HALF || x->data_type == FE_DATA_BFLOAT16 ||
                     x->data_type == FE_DATA_INT4 || x->data_type == FE_DATA_UINT4,
                 FE_STATUS_NOT_SUPPORTED, "X '%s' is %s; general block scaling reads fp8, half, bfloat16 or 4-bit integers",
                 x->name.c_str(), data_type_name(x->data_type));
        FE_CHECK(is_general_scale(scale->data_type), FE_STATUS_NOT_SUPPORTED,
                 "scale '%s' is %s; block scales are fp8_e8m0 (MXFP8) or float, half or bfloat16",
                 scale->name.c_str(), data_type_name(scale->data_type));
        lowering.require(Feature::general_block_scaling);
        const size_t rank = x->dims.size();
        if (is_fp8(x->data_type) && rank >= 2 && (x->dims[rank - 1] % 128 != 0 || x->dims[rank - 2] % 128 != 0))
            lowering.require(Feature::general_block_scaling_fp8_partial);
        Descriptor op(CUDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC, lowering.tensor(x), "block-scale dequantize X");
        op.set_desc(CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC, lowering.tensor(scale),
                    "block-scale dequantize scale");
        op.set_desc(CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC, lowering.tensor(outputs[0]),
                    "block-scale dequantize Y");
        op.set_data_type(CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_MATH_PREC, lowering.compute_type(*this),
                         "block-scale math precision");
        int32_t blocks[2] = {block_rows_, block_size_};
        op.set(CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE, CUDNN_TYPE_INT32, 2, blocks,
               "block-scale block sizes");
        lowering.finalize_and_add(std::move(op), "finalizing block-scale dequantize '" + name + "'");
    }
};

const schema::Struct kBlockOptions = FE_SCHEMA_OPTIONS(fe_block_scale_options, FE_BLOCK_SCALE_OPTIONS_INIT,
    "Block scaling's block size.",
    FE_SCHEMA_NAME_FIELD(fe_block_scale_options),
    FE_SCHEMA_COMPUTE_FIELD(fe_block_scale_options),
    FE_SCHEMA_RANGE(fe_block_scale_options, block_size, integer, 1, 2147483647,
        "Elements per scale along the last dim (32: MXFP8)."),
    FE_SCHEMA_RANGE(fe_block_scale_options, block_rows, integer, 1, 2147483647,
        "Elements per scale along the second-to-last dim (general block scaling)."));

const schema::Op kQuantize{"block_scale_quantize",
                   "fe_graph_block_scale_quantize",
                   "Random numbers and block scaling",
                   {{"X", nullptr, "[..., n], float, half or bfloat16"}},
                   {{"Y", nullptr, "[..., n], fp8 (e5m2 if the caller sets it)", {}, FE_DATA_FP8_E4M3},
                    {"Scale", nullptr, "[..., n / block_size]", {}, FE_DATA_FP8_E8M0}},
                   {},
                   &kBlockOptions,
                   {"name", "compute_data_type", "block_size"},
                   true,
                   "Block-scale quantize (MXFP8)."};

const schema::Op kDequantize{"block_scale_dequantize",
                     "fe_graph_block_scale_dequantize",
                     "Random numbers and block scaling",
                     {{"X", nullptr, "[..., m, n]: fp8 (MXFP8); fp8, half or bfloat16 (general)"},
                      {"Scale", nullptr,
                       "[..., m / block_rows, n / block_size] (rounded up): fp8_e8m0 (MXFP8); float, half or "
                       "bfloat16 (general)"}},
                     {{"Y", nullptr, "x's dims and strides"}},
                     {},
                     &kBlockOptions,
                     {},
                     true,
                     "Block-scale dequantize (MXFP8, or general block scaling before a matmul)."};

const std::vector<fe_tensor *> &add_quantize(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_block_scale_options>();
    return add_call(g, std::make_unique<BlockScaleQuantize>(c.inputs[0], o), c, o.name);
}

const std::vector<fe_tensor *> &add_dequantize(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_block_scale_options>();
    return add_call(g, std::make_unique<BlockScaleDequantize>(c.inputs[0], c.inputs[1], o), c, o.name);
}

const schema::Registration kRegistered[] = {schema::Registration(kQuantize, add_quantize),
                                            schema::Registration(kDequantize, add_dequantize)};

}  // namespace

}  // namespace fe
