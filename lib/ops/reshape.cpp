// Reshape: the same elements under another shape or layout (cuDNN's reshape operation).
// Attention's backward uses it to read P and dS transposed; the graph-level operation comes
// with the layout operations.
#include <cudnn_graph.h>

#include "common/error.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"

namespace fe {

void emit_reshape(Lowering &lowering, const Descriptor &x, const Descriptor &y, const std::string &label) {
    Descriptor op(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    op.set_desc(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x, "reshape X");
    op.set_desc(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y, "reshape Y");
    std::string what = "finalizing " + label;
    op.finalize(what.c_str(), FE_STATUS_NOT_SUPPORTED);
    lowering.add_operation(std::move(op));
}

}  // namespace fe
