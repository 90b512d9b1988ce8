// Matrix multiplication (2-D and batched with broadcast batch dims).
#include <cudnn_graph.h>

#include <string>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "serial/json.hpp"

namespace fe {
namespace {

class Matmul : public Node {
  public:
    Matmul(fe_tensor *a, fe_tensor *b, const fe_matmul_options &o) {
        inputs = {a, b};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "matmul"; }
    void write_json(json::Writer &) const override {}  // no attributes
    const char *input_port(size_t i) const override { return i == 0 ? "A" : "B"; }

    void infer() override {
        const fe_tensor *a = inputs[0], *b = inputs[1];
        size_t rank = a->dims.size();
        FE_CHECK(rank >= 2, FE_STATUS_INVALID_ARGUMENT, "A has rank %zu; a matmul takes [..., M, K]", rank);
        FE_CHECK(b->dims.size() == rank, FE_STATUS_INVALID_ARGUMENT,
                 "A has rank %zu and B has rank %zu; they must match", rank, b->dims.size());
        int64_t m = a->dims[rank - 2], k = a->dims[rank - 1];
        int64_t kb = b->dims[rank - 2], n = b->dims[rank - 1];
        FE_CHECK(k == kb, FE_STATUS_INVALID_ARGUMENT, "A is %s and B is %s: A has K=%lld columns, B has %lld rows",
                 dims_string(a->dims).c_str(), dims_string(b->dims).c_str(), static_cast<long long>(k),
                 static_cast<long long>(kb));
        std::vector<int64_t> out;
        for (size_t i = 0; i + 2 < rank; ++i) {
            int64_t da = a->dims[i], db = b->dims[i];
            FE_CHECK(da == db || da == 1 || db == 1, FE_STATUS_INVALID_ARGUMENT,
                     "batch dim %zu is %lld in A and %lld in B; they must be equal or 1", i,
                     static_cast<long long>(da), static_cast<long long>(db));
            out.push_back(da > db ? da : db);
        }
        out.push_back(m);
        out.push_back(n);
        assign_inferred_shape(outputs[0], out, packed_strides(out));
    }

    void lower(Lowering &lowering) const override {
        refuse_chained_matmul();
        emit_matmul(lowering, lowering.tensor(inputs[0]), lowering.tensor(inputs[1]), lowering.tensor(outputs[0]),
                    lowering.compute_type(*this), "matmul '" + name + "'");
    }

  private:
    // A matmul fed by another matmul through virtual tensors and pointwise steps only (e.g.
    // matmul, gelu, matmul): refused on the cuDNN versions whose fused kernel for that chain gave
    // wrong results (Feature::chained_matmuls). Chains through a reduction (softmax between two
    // matmuls, attention's pattern) were verified and stay.
    void refuse_chained_matmul() const {
        for (const fe_tensor *in : inputs) {
            const fe_tensor *t = in;
            for (int depth = 0; t && t->is_virtual() && depth < 16; ++depth) {
                const Node *producer = t->producer;
                if (std::string(producer->kind()) == "matmul") {
                    std::string why = refusal(Feature::chained_matmuls, cudnn().cudnnGetVersion());
                    FE_CHECK(why.empty(), FE_STATUS_NOT_SUPPORTED,
                             "its input '%s' comes from matmul '%s' through virtual tensors; %s: mark '%s' as an "
                             "output and run this matmul in a graph of its own",
                             in->name.c_str(), producer->name.c_str(), why.c_str(), in->name.c_str());
                }
                if (!producer->is_pointwise()) break;
                t = producer->inputs.empty() ? nullptr : producer->inputs[0];
            }
        }
    }
};

}  // namespace

void emit_matmul(Lowering &lowering, const Descriptor &a, const Descriptor &b, const Descriptor &c,
                 fe_data_type compute, const std::string &label, const MatmulOverrides &overrides) {
    Descriptor mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    mm.set_data_type(CUDNN_ATTR_MATMUL_COMP_TYPE, compute, "CUDNN_ATTR_MATMUL_COMP_TYPE");
    if (overrides.has_padding_value)
        mm.set(CUDNN_ATTR_MATMUL_PADDING_VALUE, CUDNN_TYPE_DOUBLE, 1, &overrides.padding_value,
               "CUDNN_ATTR_MATMUL_PADDING_VALUE");
    mm.finalize("finalizing the matmul descriptor", FE_STATUS_NOT_SUPPORTED);
    const Descriptor &kept = lowering.keep(std::move(mm));
    Descriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a, "matmul A");
    op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b, "matmul B");
    op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c, "matmul C");
    op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_DESC, kept, "matmul descriptor");
    if (overrides.m) op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, *overrides.m, "matmul M override");
    if (overrides.n) op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, *overrides.n, "matmul N override");
    if (overrides.k) op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, *overrides.k, "matmul K override");
    std::string what = "finalizing " + label;
    op.finalize(what.c_str(), FE_STATUS_NOT_SUPPORTED);
    lowering.add_operation(std::move(op));
}

std::unique_ptr<Node> make_matmul(fe_tensor *a, fe_tensor *b, const fe_matmul_options &options) {
    return std::make_unique<Matmul>(a, b, options);
}

}  // namespace fe
