/* Compiled as strict C99 (-pedantic -Werror) by the build: the public header must stay C. The
   same program is compiled as strict C++17 through header_check_cpp.cpp. */
#include "cudnnfe.h"

int main(void) {
    fe_graph_options graph_options = FE_GRAPH_OPTIONS_INIT;
    fe_conv_options conv_options = FE_CONV_OPTIONS_INIT;
    fe_matmul_options matmul_options = FE_MATMUL_OPTIONS_INIT;
    fe_pointwise_options pointwise_options = FE_POINTWISE_OPTIONS_INIT;
    fe_reduction_options reduction_options = FE_REDUCTION_OPTIONS_INIT;
    fe_build_options build_options = FE_BUILD_OPTIONS_INIT;
    fe_transpose_options transpose_options = FE_TRANSPOSE_OPTIONS_INIT;
    fe_reshape_options reshape_options = FE_RESHAPE_OPTIONS_INIT;
    fe_slice_options slice_options = FE_SLICE_OPTIONS_INIT;
    fe_concatenate_options concatenate_options = FE_CONCATENATE_OPTIONS_INIT;
    (void)graph_options;
    (void)conv_options;
    (void)matmul_options;
    (void)pointwise_options;
    (void)reduction_options;
    (void)build_options;
    (void)transpose_options;
    (void)reshape_options;
    (void)slice_options;
    (void)concatenate_options;
    return fe_version() == FE_VERSION ? 0 : 1;
}
