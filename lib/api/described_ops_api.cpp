// The C entry points of the ops added through their description (lib/schema): each passes its
// arguments to add_described with the op's description, looked up once by its kind (every op
// registers one: an absent one is an internal error).
#include "api/described_entry.hpp"
#include "schema/schema.hpp"

FE_EXPORT fe_status fe_graph_bn_finalize(fe_graph *graph, fe_tensor *sum, fe_tensor *sq_sum, fe_tensor *scale,
                                         fe_tensor *bias, fe_tensor *running_mean, fe_tensor *running_var,
                                         const fe_bn_finalize_options *options, fe_tensor **out_eq_scale,
                                         fe_tensor **out_eq_bias, fe_tensor **out_mean, fe_tensor **out_inv_variance,
                                         fe_tensor **out_next_running_mean, fe_tensor **out_next_running_var) {
    static const fe::schema::Op *op = fe::schema::find_op("bn_finalize");
    if (!op) return FE_STATUS_INTERNAL;
    return fe::add_described(*op, graph, {sum, sq_sum, scale, bias, running_mean, running_var}, options,
                             {out_eq_scale, out_eq_bias, out_mean, out_inv_variance, out_next_running_mean,
                              out_next_running_var});
}

FE_EXPORT fe_status fe_graph_dbn_weight(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *mean,
                                        fe_tensor *inv_variance, fe_tensor *scale,
                                        const fe_dbn_weight_options *options, fe_tensor **out_dscale,
                                        fe_tensor **out_dbias, fe_tensor **out_eq_scale_dy,
                                        fe_tensor **out_eq_scale_x, fe_tensor **out_eq_bias) {
    static const fe::schema::Op *op = fe::schema::find_op("dbn_weight");
    if (!op) return FE_STATUS_INTERNAL;
    return fe::add_described(*op, graph, {dy, x, mean, inv_variance, scale}, options,
                             {out_dscale, out_dbias, out_eq_scale_dy, out_eq_scale_x, out_eq_bias});
}

FE_EXPORT fe_status fe_graph_genstats(fe_graph *graph, fe_tensor *x, const fe_genstats_options *options,
                                      fe_tensor **out_sum, fe_tensor **out_sq_sum) {
    static const fe::schema::Op *op = fe::schema::find_op("genstats");
    if (!op) return FE_STATUS_INTERNAL;
    return fe::add_described(*op, graph, {x}, options, {out_sum, out_sq_sum});
}

FE_EXPORT fe_status fe_graph_moe_grouped_matmul(fe_graph *graph, fe_tensor *token, fe_tensor *weight,
                                                fe_tensor *first_token_offset,
                                                const fe_moe_grouped_matmul_options *options, fe_tensor **out_y) {
    static const fe::schema::Op *op = fe::schema::find_op("moe_grouped_matmul");
    if (!op) return FE_STATUS_INTERNAL;
    return fe::add_described(*op, graph, {token, weight, first_token_offset}, options, {out_y});
}
