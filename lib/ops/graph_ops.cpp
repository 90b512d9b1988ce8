#include "ops/graph_ops.hpp"

#include "common/error.hpp"
#include "ops/ops.hpp"

namespace fe {

void keep_float(fe_tensor *t) {
    t->data_type = FE_DATA_FLOAT;
    t->user_data_type = true;
}

void like_scale(fe_tensor *t, const fe_tensor *scale) {
    if (scale->data_type == FE_DATA_NOT_SET) return;
    t->data_type = scale->data_type;
    t->user_data_type = true;
}

}  // namespace fe
