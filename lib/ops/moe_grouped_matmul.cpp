// Mixture-of-experts grouped matmul: every expert's routed rows times that expert's weight, in
// cuDNN's one operation (NONE, GATHER and SCATTER modes). The whole op in one file: its node,
// its description and its entry point.

// include/cudnnfe.h, section "Matmuls" (copied there by scripts/schema/generate_header.py):
// /* Which rows a mixture-of-experts grouped matmul reads and where it writes them. */
// typedef enum fe_moe_mode FE_ENUM_BASE {
//     FE_MOE_MODE_NONE = 0,   /* rows already grouped by expert: row r of token gives row r */
//     FE_MOE_MODE_GATHER = 1, /* row r reads token row token_index[r] (dispatch: tokens to experts) */
//     FE_MOE_MODE_SCATTER = 2 /* row r lands at token_index[r] * top_k + token_ks[r] (return trip) */
// } fe_moe_mode;
//
// typedef struct fe_moe_grouped_matmul_options {
//     uint32_t struct_size;
//     const char *name;
//     fe_data_type compute_data_type; /* default: the graph's (float) */
//     fe_moe_mode mode;               /* default NONE */
//     /* GATHER and SCATTER: int32 [1, R, 1], per routed row the token it belongs to. */
//     fe_tensor *token_index;
//     /* SCATTER: int32 [1, R, 1], per routed row its slot in its token's top-k list (0..top_k-1). */
//     fe_tensor *token_ks;
//     int32_t top_k; /* SCATTER: experts per token (>= 1); 0 otherwise */
// } fe_moe_grouped_matmul_options;
// #define FE_MOE_GROUPED_MATMUL_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_moe_grouped_matmul_options), NULL, FE_DATA_NOT_SET, FE_MOE_MODE_NONE, NULL, NULL, 0 }
//
// /** Mixture-of-experts grouped matmul (cuDNN >= 9.18): each expert's rows times that expert's
//  *  weight, in one operation. token: [1, M, K]; weight: [E, K, N] (any layout cuDNN takes; the
//  *  reference frontend's is K-contiguous, strides [K * N, 1, K]); first_token_offset: int32
//  *  [G, 1, 1], G a multiple of E: the first routed row of each group, groups in order, group g
//  *  using expert g % E and ending where the next starts (the last at the routed row count).
//  *  Routed row r of group g computes (its token row) x weight[g % E]: token row r with NONE and
//  *  SCATTER, token row token_index[r] with GATHER. out_y: [1, R, N] with R = token_index's rows
//  *  for GATHER, else M; row r, or with SCATTER row token_index[r] * top_k + token_ks[r], receives
//  *  the product (no routing weight is applied; rows no group covers are left as they were).
//  *  In the graph's io type unless set. options nullable (mode NONE). */
// FE_API fe_status fe_graph_moe_grouped_matmul(fe_graph *graph, fe_tensor *token, fe_tensor *weight,
//                                              fe_tensor *first_token_offset,
//                                              const fe_moe_grouped_matmul_options *options,
//                                              fe_tensor **out_y);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "ops/graph_ops.hpp"
#include "ops/no_engine_causes.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "schema/schema.hpp"
#include "schema/option_fields.hpp"

namespace fe {

namespace {

enum Port { kToken = 0, kWeight, kOffsets };

class MoeGroupedMatmul : public Node {
  public:
    MoeGroupedMatmul(fe_tensor *token, fe_tensor *weight, fe_tensor *offsets, const fe_moe_grouped_matmul_options &o)
        : options_(o) {
        options_.name = nullptr;
        inputs = {token, weight, offsets};
        ports_ = {"Token", "Weight", "FirstTokenOffset"};
        if (o.token_index) index_ = add_input(o.token_index, "token_index");
        if (o.token_ks) ks_ = add_input(o.token_ks, "token_ks");
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "moe_grouped_matmul"; }
    const char *input_port(size_t i) const override { return i < ports_.size() ? ports_[i] : "IN"; }

    std::string attributes() const override {
        static const char *const kModes[] = {"none", "gather", "scatter"};
        std::string a = std::string("mode=") + kModes[options_.mode];
        if (options_.mode == FE_MOE_MODE_SCATTER) a += format(" top_k=%d", options_.top_k);
        return a;
    }

    void infer() override {
        const fe_moe_mode mode = options_.mode;
        const fe_tensor *token = inputs[kToken], *weight = inputs[kWeight];
        fe_tensor *offsets = inputs[kOffsets];
        FE_CHECK(token->dims.size() == 3 && token->dims[0] == 1, FE_STATUS_INVALID_ARGUMENT,
                 "token '%s' is %s; it must be [1, rows, K]", token->name.c_str(), dims_string(token->dims).c_str());
        FE_CHECK(weight->dims.size() == 3, FE_STATUS_INVALID_ARGUMENT, "weight '%s' is %s; it must be [experts, K, N]",
                 weight->name.c_str(), dims_string(weight->dims).c_str());
        const int64_t rows = token->dims[1], k = token->dims[2], experts = weight->dims[0], n = weight->dims[2];
        FE_CHECK(weight->dims[1] == k, FE_STATUS_INVALID_ARGUMENT,
                 "token '%s' has K = %lld but weight '%s' has %lld rows per expert", token->name.c_str(),
                 static_cast<long long>(k), weight->name.c_str(), static_cast<long long>(weight->dims[1]));
        FE_CHECK(offsets->dims.size() == 3 && offsets->dims[1] == 1 && offsets->dims[2] == 1 && offsets->dims[0] >= 1 &&
                     offsets->dims[0] % experts == 0,
                 FE_STATUS_INVALID_ARGUMENT,
                 "first_token_offset '%s' is %s; it must be [groups, 1, 1] with groups a multiple of the %lld experts",
                 offsets->name.c_str(), dims_string(offsets->dims).c_str(), static_cast<long long>(experts));
        require_int32(offsets, "first_token_offset");

        const bool routed = mode != FE_MOE_MODE_NONE;
        FE_CHECK(routed == (index_ >= 0), FE_STATUS_INVALID_ARGUMENT,
                 routed ? "mode %s needs options.token_index" : "mode %s takes no token_index (GATHER and SCATTER do)",
                 mode_name());
        FE_CHECK((mode == FE_MOE_MODE_SCATTER) == (ks_ >= 0), FE_STATUS_INVALID_ARGUMENT,
                 mode == FE_MOE_MODE_SCATTER ? "mode %s needs options.token_ks" : "mode %s takes no token_ks (SCATTER does)",
                 mode_name());
        if (mode == FE_MOE_MODE_SCATTER)
            FE_CHECK(options_.top_k >= 1, FE_STATUS_INVALID_ARGUMENT,
                     "mode SCATTER needs options.top_k (the experts per token), not %d", options_.top_k);
        else
            FE_CHECK(options_.top_k == 0, FE_STATUS_INVALID_ARGUMENT,
                     "options.top_k is %d; it applies to mode SCATTER only", options_.top_k);
        int64_t out_rows = rows;
        for (int index : {index_, ks_}) {
            if (index < 0) continue;
            fe_tensor *t = inputs[static_cast<size_t>(index)];
            const char *what = index == index_ ? "token_index" : "token_ks";
            FE_CHECK(t->dims.size() == 3 && t->dims[0] == 1 && t->dims[2] == 1, FE_STATUS_INVALID_ARGUMENT,
                     "%s '%s' is %s; it must be [1, routed rows, 1]", what, t->name.c_str(), dims_string(t->dims).c_str());
            require_int32(t, what);
        }
        if (mode == FE_MOE_MODE_GATHER) out_rows = inputs[static_cast<size_t>(index_)]->dims[1];
        if (mode == FE_MOE_MODE_SCATTER)
            for (int index : {index_, ks_})
                FE_CHECK(inputs[static_cast<size_t>(index)]->dims[1] == rows, FE_STATUS_INVALID_ARGUMENT,
                         "'%s' has %lld rows; SCATTER takes one per token row (%lld)",
                         inputs[static_cast<size_t>(index)]->name.c_str(),
                         static_cast<long long>(inputs[static_cast<size_t>(index)]->dims[1]), static_cast<long long>(rows));
        const std::vector<int64_t> dims = {1, out_rows, n};
        assign_inferred_shape(outputs[0], dims, packed_strides(dims));
    }

    void write_attributes(AttributeWriter &out) const override { write_option_attributes(out, op_schema(kind()), &options_, 0); }

    // Weights stored N-contiguous had no engine in any mode; SCATTER has its own entry.
    std::string unsupported_hint() const override {
        const int64_t version = cudnn().cudnnGetVersion();
        std::string hint;
        if (std::optional<Feature> cause = moe_weight_no_engine_cause(inputs[kWeight]))
            hint = explanation(*cause, version);
        if (options_.mode == FE_MOE_MODE_SCATTER)
            hint += (hint.empty() ? "" : "; ") + explanation(Feature::moe_grouped_matmul_scatter, version);
        return hint;
    }

    void lower(Lowering &lowering) const override {
        lowering.require(Feature::moe_grouped_matmul);
        if (options_.mode == FE_MOE_MODE_GATHER) lowering.require(Feature::moe_grouped_matmul_gather);
        Descriptor op(CUDNN_BACKEND_OPERATION_MOE_GROUPED_MATMUL_DESCRIPTOR);
        cudnnMoeGroupedMatmulMode_t mode = static_cast<cudnnMoeGroupedMatmulMode_t>(options_.mode);
        op.set(CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_MODE, CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE, 1, &mode,
               "CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_MODE");
        op.set_data_type(CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_MATH_PREC, lowering.compute_type(*this),
                         "CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_MATH_PREC");
        op.set_desc(CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_DESC, lowering.tensor(inputs[kToken]), "MoE token");
        op.set_desc(CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_WEIGHT_DESC, lowering.tensor(inputs[kWeight]), "MoE weight");
        op.set_desc(CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_FIRST_TOKEN_OFFSET_DESC, lowering.tensor(inputs[kOffsets]),
                    "MoE first token offsets");
        op.set_desc(CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_OUTPUT_DESC, lowering.tensor(outputs[0]), "MoE output");
        if (index_ >= 0)
            op.set_desc(CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_INDEX_DESC,
                        lowering.tensor(inputs[static_cast<size_t>(index_)]), "MoE token index");
        if (ks_ >= 0) {
            op.set_desc(CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_KS_DESC,
                        lowering.tensor(inputs[static_cast<size_t>(ks_)]), "MoE token ks");
            int32_t top_k = options_.top_k;
            op.set(CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOP_K, CUDNN_TYPE_INT32, 1, &top_k,
                   "CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOP_K");
        }
        lowering.finalize_and_add(std::move(op), "finalizing MoE grouped matmul '" + name + "'");
    }

  private:
    int add_input(fe_tensor *t, const char *port) {
        inputs.push_back(t);
        ports_.push_back(port);
        return static_cast<int>(inputs.size() - 1);
    }
    const char *mode_name() const {
        return options_.mode == FE_MOE_MODE_GATHER ? "GATHER" : options_.mode == FE_MOE_MODE_SCATTER ? "SCATTER" : "NONE";
    }
    // Offsets and routing tables are int32; one declared without a type is taken as int32.
    static void require_int32(fe_tensor *t, const char *what) {
        FE_CHECK(t->data_type == FE_DATA_INT32 || t->data_type == FE_DATA_NOT_SET, FE_STATUS_INVALID_ARGUMENT,
                 "%s '%s' is %s; it must be int32", what, t->name.c_str(), data_type_name(t->data_type));
        t->data_type = FE_DATA_INT32;
    }

    fe_moe_grouped_matmul_options options_;  // as the caller gave them (name dropped), for the graph JSON
    std::vector<const char *> ports_;
    int index_ = -1, ks_ = -1;
};

const schema::Enum kMode{"fe_moe_mode",
                         {{"FE_MOE_MODE_NONE", "none", FE_MOE_MODE_NONE,
                           "Rows already grouped by expert: row r of token gives row r."},
                          {"FE_MOE_MODE_GATHER", "gather", FE_MOE_MODE_GATHER,
                           "Row r reads token row token_index[r] (dispatch: tokens to experts)."},
                          {"FE_MOE_MODE_SCATTER", "scatter", FE_MOE_MODE_SCATTER,
                           "Row r lands at token_index[r] * top_k + token_ks[r] (the return trip)."}},
                         "Which rows an MoE grouped matmul reads and where it writes them."};

const schema::Struct kOptions = FE_SCHEMA_OPTIONS(fe_moe_grouped_matmul_options, FE_MOE_GROUPED_MATMUL_OPTIONS_INIT,
    "The MoE grouped matmul's mode and routing tensors.",
    FE_SCHEMA_NAME_FIELD(fe_moe_grouped_matmul_options),
    FE_SCHEMA_COMPUTE_FIELD(fe_moe_grouped_matmul_options),
    FE_SCHEMA_ENUM(fe_moe_grouped_matmul_options, mode, kMode, "NONE, GATHER or SCATTER."),
    FE_SCHEMA_TENSOR(fe_moe_grouped_matmul_options, token_index, nullptr,
        "GATHER, SCATTER: int32 [1, R, 1], each routed row's token."),
    FE_SCHEMA_TENSOR(fe_moe_grouped_matmul_options, token_ks, nullptr,
        "SCATTER: int32 [1, R, 1], each routed row's slot in its token's top k."),
    FE_SCHEMA_RANGE(fe_moe_grouped_matmul_options, top_k, integer, 0, 1024, "SCATTER: experts per token."));

const schema::Op kMoeGroupedMatmul{
    "moe_grouped_matmul",
    "fe_graph_moe_grouped_matmul",
    "Matmuls",
    {{"Token", nullptr, "[1, M, K]", {1, 64, 32}},
     {"Weight", nullptr, "[E, K, N]", {4, 32, 16}},
     {"FirstTokenOffset", nullptr, "int32 [G, 1, 1]: each group's first routed row", {4, 1, 1}}},
    {{"Y", nullptr, "[1, R, N]: the products, in routed order (SCATTER: in token order)"}},
    {},
    &kOptions,
    {},
    true,
    "Mixture-of-experts grouped matmul: each expert's rows times its weight."};

const std::vector<fe_tensor *> &add_moe_grouped_matmul(fe_graph &g, const schema::Call &call) {
    const auto &o = call.options_as<fe_moe_grouped_matmul_options>();
    return add_call(g, std::make_unique<MoeGroupedMatmul>(call.inputs[kToken], call.inputs[kWeight], call.inputs[kOffsets], o),
                    call, o.name);
}

const schema::Registration kRegistered(kMoeGroupedMatmul, add_moe_grouped_matmul);

}  // namespace

}  // namespace fe
