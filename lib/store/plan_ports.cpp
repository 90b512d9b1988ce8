#include "store/plan_ports.hpp"

#include <cstring>
#include <vector>

namespace fe {

namespace {

struct OperationPorts {
    const char *operation;  // without CUDNN_BACKEND_OPERATION_ and _DESCRIPTOR
    std::vector<PortKey> ports;
};

const std::vector<OperationPorts> &port_table() {
    static const std::vector<OperationPorts> table = {
        {"CONVOLUTION_FORWARD",
         {{"X", CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, true},
          {"W", CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, true},
          {"Y", CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, true}}},
        {"CONVOLUTION_BACKWARD_DATA",
         {{"dX", CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, true},
          {"W", CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, true},
          {"dY", CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, true}}},
        {"CONVOLUTION_BACKWARD_FILTER",
         {{"X", CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, true},
          {"dW", CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, true},
          {"dY", CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, true}}},
        {"POINTWISE",
         {{"X", CUDNN_ATTR_OPERATION_POINTWISE_XDESC, true},
          {"B", CUDNN_ATTR_OPERATION_POINTWISE_BDESC, true},
          {"Y", CUDNN_ATTR_OPERATION_POINTWISE_YDESC, true},
          {"T", CUDNN_ATTR_OPERATION_POINTWISE_TDESC, true},
          {"dX", CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, true},
          {"dY", CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, true}}},
        {"MATMUL",
         {{"matA", CUDNN_ATTR_OPERATION_MATMUL_ADESC, true},
          {"matB", CUDNN_ATTR_OPERATION_MATMUL_BDESC, true},
          {"matC", CUDNN_ATTR_OPERATION_MATMUL_CDESC, true},
          {"mOverride", CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, true},
          {"nOverride", CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, true},
          {"kOverride", CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, true}}},
        {"REDUCTION",
         {{"X", CUDNN_ATTR_OPERATION_REDUCTION_XDESC, true}, {"Y", CUDNN_ATTR_OPERATION_REDUCTION_YDESC, true}}},
        {"GEN_STATS",
         {{"X", CUDNN_ATTR_OPERATION_GENSTATS_XDESC, true},
          {"Sum", CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, true},
          {"SqSum", CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, true}}},
        {"RESHAPE", {{"X", CUDNN_ATTR_OPERATION_RESHAPE_XDESC, true}, {"Y", CUDNN_ATTR_OPERATION_RESHAPE_YDESC, true}}},
        {"RESAMPLE_FWD",
         {{"X", CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, true},
          {"Y", CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, true},
          {"Idx", CUDNN_ATTR_OPERATION_RESAMPLE_FWD_IDXDESC, true}}},
        {"RESAMPLE_BWD",
         {{"dX", CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DXDESC, true},
          {"dY", CUDNN_ATTR_OPERATION_RESAMPLE_BWD_DYDESC, true},
          {"X", CUDNN_ATTR_OPERATION_RESAMPLE_BWD_XDESC, true},
          {"Y", CUDNN_ATTR_OPERATION_RESAMPLE_BWD_YDESC, true},
          {"Idx", CUDNN_ATTR_OPERATION_RESAMPLE_BWD_IDXDESC, false}}},
        {"BN_FINALIZE_STATISTICS",
         {{"ySum", CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SUM_DESC, true},
          {"ySqSum", CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC, true},
          {"bnScale", CUDNN_ATTR_OPERATION_BN_FINALIZE_SCALE_DESC, true},
          {"bnBias", CUDNN_ATTR_OPERATION_BN_FINALIZE_BIAS_DESC, true},
          {"bnEqScale", CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC, true},
          {"bnEqBias", CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC, true},
          {"bnPrevRunningMean", CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC, true},
          {"bnPrevRunningVar", CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC, true},
          {"bnUpdatedRunningMean", CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC, true},
          {"bnUpdatedRunningVar", CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC, true},
          {"bnSavedMean", CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_MEAN_DESC, true},
          {"bnSavedInvStd", CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC, true},
          {"accumCntValTensor", CUDNN_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC, true},
          {"epsilonValTensor", CUDNN_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC, true},
          {"expAverageFactorValTensor", CUDNN_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC, true}}},
        {"NORM_FORWARD",
         {{"X", CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, true},
          {"Y", CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, true},
          {"Mean", CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, true},
          {"InvVariance", CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, true},
          {"Scale", CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, true},
          {"Bias", CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, true},
          {"epsilonDesc", CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, true},
          {"expavgfactorDesc", CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, true},
          {"InRunningMean", CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, true},
          {"InRunningVar", CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, true},
          {"OutRunningMean", CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, true},
          {"OutRunningVar", CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, true}}},
        {"NORM_BACKWARD",
         {{"X", CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, true},
          {"DY", CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, true},
          {"Mean", CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, true},
          {"InvVariance", CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, true},
          {"Scale", CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, true},
          {"DScale", CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, true},
          {"DBias", CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, true},
          {"DX", CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, true}}},
        {"BN_BWD_WEIGHTS",
         {{"xDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_X_DESC, true},
          {"dyDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DY_DESC, true},
          {"BNmeanDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MEAN_DESC, true},
          {"BNinvstdDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_INVSTD_DESC, true},
          {"BNscaleDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_BN_SCALE_DESC, true},
          {"dGammaDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_SCALE_DESC, true},
          {"dBetaDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_BIAS_DESC, true},
          {"eqDyScaleDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_DY_SCALE_DESC, true},
          {"eqXScaleDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_X_SCALE_DESC, true},
          {"eqBiasDesc", CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_BIAS, true}}},
        {"RNG",
         {{"Y", CUDNN_ATTR_OPERATION_RNG_YDESC, true},
          {"seedTensor", CUDNN_ATTR_OPERATION_RNG_SEED, true},
          {"offset", CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, true}}},
        {"PAGED_CACHE_LOAD",
         {{"container", CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, true},
          {"sequence", CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC, true},
          {"pageTable", CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC, true},
          {"Y", CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, true}}},
        {"BLOCK_SCALE_DEQUANTIZE",
         {{"X", CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC, true},
          {"scale", CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC, true},
          {"Y", CUDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC, true}}},
        {"MOE_GROUPED_MATMUL",
         {{"token", CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_DESC, true},
          {"weight", CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_WEIGHT_DESC, true},
          {"firstTokenOffset", CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_FIRST_TOKEN_OFFSET_DESC, true},
          {"output", CUDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_OUTPUT_DESC, true}}},
        {"SDPA_FWD",
         {{"Q", CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, true},
          {"K", CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, true},
          {"V", CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, true},
          {"O", CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, true},
          {"scale", CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, true},
          {"stats", CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, true},
          {"seqLenQ", CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, true},
          {"seqLenKV", CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, true},
          {"blockMask", CUDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC, false},
          {"pageTableK", CUDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC, false},
          {"pageTableV", CUDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC, false}}},
    };
    return table;
}

const OperationPorts *ports_of(const std::string &operation) {
    const char *prefix = "CUDNN_BACKEND_OPERATION_", *suffix = "_DESCRIPTOR";
    size_t p = std::strlen(prefix), s = std::strlen(suffix);
    if (operation.size() <= p + s || operation.compare(0, p, prefix) != 0 ||
        operation.compare(operation.size() - s, s, suffix) != 0)
        return nullptr;
    std::string short_name = operation.substr(p, operation.size() - p - s);
    for (const OperationPorts &o : port_table())
        if (short_name == o.operation) return &o;
    return nullptr;
}

}  // namespace

const PortKey *port_by_key(const std::string &operation, const std::string &key) {
    if (const OperationPorts *o = ports_of(operation))
        for (const PortKey &port : o->ports)
            if (key == port.key) return &port;
    return nullptr;
}

const PortKey *port_by_attribute(const std::string &operation, cudnnBackendAttributeName_t attribute) {
    if (const OperationPorts *o = ports_of(operation))
        for (const PortKey &port : o->ports)
            if (attribute == port.attribute) return &port;
    return nullptr;
}

}  // namespace fe
