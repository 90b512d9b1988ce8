#include "ops/graph_ops.hpp"

#include <algorithm>
#include <cstring>

#include "common/error.hpp"
#include "ops/layout.hpp"
#include "ops/ops.hpp"
#include "ops/resample.hpp"

namespace fe {

void keep_float(fe_tensor *t) {
    t->data_type = FE_DATA_FLOAT;
    t->user_data_type = true;
}

namespace {

// Gradients of scale and bias take scale's type when it has one (else the graph's defaults).
void like_scale(fe_tensor *t, const fe_tensor *scale) {
    if (scale->data_type == FE_DATA_NOT_SET) return;
    t->data_type = scale->data_type;
    t->user_data_type = true;
}

}  // namespace

Results add_sdpa(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_options &o) {
    std::vector<const char *> ports = {"O"};
    if (o.generate_stats) ports.push_back("Stats");
    if (o.output_dropout_mask) ports.push_back("DropoutMask");
    if (o.output_max_sum_exp) {
        ports.push_back("Max");
        ports.push_back("SumExp");
    }
    ScoreModifier score_mod =
        find_score_modifier(g, o.score_mod_input, o.score_mod_output, {}, "score_mod_input", "score_mod_output");
    Results outputs = g.add_op(make_sdpa(q, k, v, o, score_mod), o.name, "sdpa", ports);
    absorb_score_modifier(g, score_mod, *g.nodes.back());
    // The stats, Max, SumExp and a drawn mask (cuDNN draws it in float, 0 or 1) are float.
    for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
    return outputs;
}

Results add_sdpa_fp8(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_fp8_scales &s,
                     const fe_sdpa_options &o) {
    std::vector<const char *> ports = {"O"};
    if (o.generate_stats) ports.push_back("Stats");
    ports.push_back("Amax_S");
    ports.push_back("Amax_O");
    if (o.output_dropout_mask) ports.push_back("DropoutMask");
    Results outputs = g.add_op(make_sdpa_fp8(q, k, v, s, o), o.name, "sdpa_fp8", ports);
    for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
    if (outputs[0]->data_type == FE_DATA_NOT_SET && q->data_type != FE_DATA_NOT_SET)
        outputs[0]->data_type = q->data_type;  // O in Q's FP8 type unless the user says otherwise
    return outputs;
}

Results add_sdpa_backward(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o, fe_tensor *d_o,
                          fe_tensor *stats, const fe_sdpa_backward_options &options) {
    std::vector<const char *> ports = {"dQ", "dK", "dV"};
    if (options.output_dbias) ports.push_back("dBias");
    if (options.output_dsink) ports.push_back("dSink");
    ScoreModifier score_mod = find_score_modifier(g, options.score_mod_input, options.score_mod_output, {},
                                                  "score_mod_input", "score_mod_output");
    ScoreModifier score_mod_grad =
        find_score_modifier(g, options.score_mod_grad_input, options.score_mod_grad_output,
                            score_modifier_tensors(score_mod), "score_mod_grad_input", "score_mod_grad_output");
    for (const Node *node : score_mod_grad.nodes)
        FE_CHECK(std::find(score_mod.nodes.begin(), score_mod.nodes.end(), node) == score_mod.nodes.end(),
                 FE_STATUS_INVALID_ARGUMENT, "pointwise '%s' is in both the score modifier and its derivative",
                 node->name.c_str());
    FE_CHECK(!score_mod.given() || score_mod_grad.input != score_mod.input, FE_STATUS_INVALID_ARGUMENT,
             "options.score_mod_grad_input is options.score_mod_input '%s'; the gradient needs a stand-in of its own",
             score_mod.input->name.c_str());
    Results outputs = g.add_op(make_sdpa_backward(q, k, v, o, d_o, stats, options, score_mod, score_mod_grad),
                               options.name, "sdpa_backward", ports);
    absorb_score_modifier(g, score_mod, *g.nodes.back());
    absorb_score_modifier(g, score_mod_grad, *g.nodes.back());
    if (options.output_dsink) keep_float(outputs.back());
    if (options.output_dbias && options.bias && options.bias->data_type != FE_DATA_NOT_SET) {
        outputs[3]->data_type = options.bias->data_type;  // like the bias; the user may override
        outputs[3]->user_data_type = true;
    }
    return outputs;
}

Results add_sdpa_fp8_backward(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o, fe_tensor *d_o,
                              fe_tensor *stats, const fe_sdpa_fp8_backward_scales &s,
                              const fe_sdpa_backward_options &options) {
    Results outputs = g.add_op(make_sdpa_fp8_backward(q, k, v, o, d_o, stats, s, options), options.name,
                               "sdpa_fp8_backward", {"dQ", "dK", "dV", "Amax_dQ", "Amax_dK", "Amax_dV", "Amax_dP"});
    for (size_t i = 0; i < 3; ++i)  // gradients in the FP8 type of what they differentiate, unless overridden
        if (outputs[i]->data_type == FE_DATA_NOT_SET) outputs[i]->data_type = (i == 0 ? q : i == 1 ? k : v)->data_type;
    for (size_t i = 3; i < 7; ++i) keep_float(outputs[i]);
    return outputs;
}

Results add_norm(fe_graph &g, const char *kind, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                 const fe_norm_options &o) {
    std::unique_ptr<Node> node;
    bool has_mean = true;
    if (std::strcmp(kind, "layernorm") == 0) {
        node = make_layernorm(x, scale, bias, o);
    } else if (std::strcmp(kind, "rmsnorm") == 0) {
        node = make_rmsnorm(x, scale, bias, o);
        has_mean = false;
    } else if (std::strcmp(kind, "instancenorm") == 0) {
        node = make_instancenorm(x, scale, bias, o);
    } else if (std::strcmp(kind, "adalayernorm") == 0) {
        node = make_adalayernorm(x, scale, bias, o);
    } else {
        FE_FAIL(FE_STATUS_INTERNAL, "no norm kind '%s'", kind);
    }
    bool training = o.phase == FE_NORM_PHASE_TRAINING;
    std::vector<const char *> ports = {"Y"};
    if (training && has_mean) ports.push_back("Mean");
    if (training) ports.push_back(has_mean ? "InvVariance" : "InvRms");
    Results outputs = g.add_op(std::move(node), o.name, kind, ports);
    for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
    return outputs;
}

Results add_norm_backward(fe_graph &g, const char *kind, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                          fe_tensor *mean, fe_tensor *inv, const fe_norm_backward_options &o, bool with_dbias) {
    std::unique_ptr<Node> node;
    if (std::strcmp(kind, "layernorm_backward") == 0)
        node = make_layernorm_backward(dy, x, scale, mean, inv, o);
    else if (std::strcmp(kind, "rmsnorm_backward") == 0)
        node = make_rmsnorm_backward(dy, x, scale, inv, o);
    else if (std::strcmp(kind, "instancenorm_backward") == 0)
        node = make_instancenorm_backward(dy, x, scale, mean, inv, o);
    else if (std::strcmp(kind, "adalayernorm_backward") == 0)
        node = make_adalayernorm_backward(dy, x, scale, mean, inv, o);
    else if (std::strcmp(kind, "batchnorm_backward") == 0)
        node = make_batchnorm_backward(dy, x, scale, mean, inv, o);
    else
        FE_FAIL(FE_STATUS_INTERNAL, "no norm backward kind '%s'", kind);
    std::vector<const char *> ports = {"DX", "DScale"};
    if (with_dbias) ports.push_back("DBias");
    Results outputs = g.add_op(std::move(node), o.name, kind, ports);
    for (size_t i = 1; i < outputs.size(); ++i) like_scale(outputs[i], scale);
    return outputs;
}

Results add_batchnorm(fe_graph &g, fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_batchnorm_options &o) {
    bool running = o.running_mean || o.running_var;
    std::vector<const char *> ports = {"Y", "Mean", "InvVariance"};
    if (running) ports.insert(ports.end(), {"NextRunningMean", "NextRunningVar"});
    Results outputs = g.add_op(make_batchnorm(x, scale, bias, o), o.name, "batchnorm", ports);
    for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
    return outputs;
}

Results add_batchnorm_inference(fe_graph &g, fe_tensor *x, fe_tensor *mean, fe_tensor *inv_variance,
                                fe_tensor *scale, fe_tensor *bias, const fe_batchnorm_inference_options &o) {
    return g.add_op(make_batchnorm_inference(x, mean, inv_variance, scale, bias), o.name, "batchnorm_inference",
                    {"Y"});
}

}  // namespace fe
