/*
 * norm_fusion_bench: a normalization fused with what surrounds it in one cudnnfe graph, against the
 * same work split as a user without the fusion runs it (two graphs, the intermediate written to
 * memory and read back).
 *
 *   norm_fusion_bench residual|bitmask|bitmask_backward TOKENS HIDDEN [rounds] [batches] [calls]
 *
 *   residual          sum = x + residual (an output), y = layernorm(sum) in training; bf16.
 *                     Split: the add's graph, then the layernorm's.
 *   bitmask           y = clamp(layernorm(x), 0, 6) in training and its bitmask 0 < y < 6; float.
 *                     Split: the layernorm's graph (y unclamped), then a pointwise graph: the clamp
 *                     alone (cuDNN 9.19 has no engine for the mask in a graph of its own).
 *   bitmask_backward  the layernorm backward of dy * mask (the mask a boolean input); float.
 *                     Split: the multiply's graph, then the layernorm backward's.
 *
 * x [TOKENS, HIDDEN], scale and bias [1, HIDDEN], statistics [TOKENS, 1] float. Both forms are built
 * first; each round times one and then the other (graph_timer.h: `calls` executions captured in a
 * CUDA graph over two sets of buffers, the median of `batches` replays); the report gives each
 * form's median over rounds, its engines, and the fused form's speedup, as one line of key=value
 * pairs. A form cuDNN has no engine for is reported with the build's message.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_timer.h"

#define MAX_TENSORS 12
#define MAX_SLOTS 16

/* A buffer per set for every tensor name: the split form's intermediate is the first graph's
 * output and the second's input, under one name, so both bind the same memory. */
struct Slot {
    const char *name;
    int64_t bytes;
    fe_tensor *typed; /* a tensor of that name, for its data type */
    void *pointers[SETS];
};

struct Form {
    fe_handle *handle;
    int graphs;
    fe_graph *graph[2];
    size_t bound[2];
    fe_tensor *tensors[2][MAX_TENSORS];
    int slot_of[2][MAX_TENSORS];
    struct Slot slots[MAX_SLOTS];
    int slot_count;
};

static void enqueue(void *context, int set, cudaStream_t stream) {
    struct Form *f = context;
    (void)stream; /* the handle's stream */
    for (int g = 0; g < f->graphs; ++g) {
        void *pointers[MAX_TENSORS];
        for (size_t i = 0; i < f->bound[g]; ++i) pointers[i] = f->slots[f->slot_of[g][i]].pointers[set];
        FE(fe_graph_execute(f->graph[g], f->handle, f->tensors[g], pointers, f->bound[g], NULL));
    }
}

static fe_tensor *input(fe_graph *g, const char *name, int64_t rows, int64_t cols, fe_data_type type) {
    int64_t dims[2] = {rows, cols};
    fe_tensor *t;
    FE(fe_graph_tensor(g, name, 2, dims, NULL, type, &t));
    return t;
}

static void output(fe_tensor *t, const char *name, fe_data_type type) {
    if (name) FE(fe_tensor_set_name(t, name));
    if (type != FE_DATA_NOT_SET) FE(fe_tensor_set_data_type(t, type));
    FE(fe_tensor_set_output(t, 1));
}

/* The layernorm in training of x, its statistics outputs; y unmarked. */
static fe_tensor *layernorm(fe_graph *g, fe_tensor *x, int64_t hidden, fe_data_type params) {
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = FE_NORM_PHASE_TRAINING;
    fe_tensor *y, *mean, *inv;
    FE(fe_graph_layernorm(g, x, input(g, "scale", 1, hidden, params), input(g, "bias", 1, hidden, params), &o, &y,
                          &mean, &inv));
    output(mean, "mean", FE_DATA_FLOAT);
    output(inv, "inv_variance", FE_DATA_FLOAT);
    return y;
}

/* clamp(y, 0, 6) and its mask 0 < clamped < 6, both outputs. */
static void clamp_and_mask(fe_graph *g, fe_tensor *y, int with_mask) {
    fe_pointwise_options clamp = FE_POINTWISE_OPTIONS_INIT;
    clamp.relu_lower_clip = 0;
    clamp.relu_upper_clip = 6;
    fe_tensor *clamped, *lower, *upper, *above, *below, *mask;
    FE(fe_graph_relu(g, y, &clamp, &clamped));
    output(clamped, "y_clamped", FE_DATA_NOT_SET);
    if (!with_mask) return;
    FE(fe_graph_scalar(g, "lower", 0.0, FE_DATA_FLOAT, &lower));
    FE(fe_graph_scalar(g, "upper", 6.0, FE_DATA_FLOAT, &upper));
    FE(fe_graph_pointwise(g, FE_POINTWISE_CMP_GT, clamped, lower, NULL, NULL, &above));
    FE(fe_graph_pointwise(g, FE_POINTWISE_CMP_LT, clamped, upper, NULL, NULL, &below));
    FE(fe_graph_pointwise(g, FE_POINTWISE_LOGICAL_AND, above, below, NULL, NULL, &mask));
    FE(fe_tensor_set_data_type(above, FE_DATA_BOOLEAN));
    FE(fe_tensor_set_data_type(below, FE_DATA_BOOLEAN));
    output(mask, "mask", FE_DATA_BOOLEAN);
}

/* The layernorm backward of dy (a graph tensor) with every input it reads; dx and the parameter
 * gradients outputs. */
static void layernorm_backward(fe_graph *g, fe_tensor *dy, int64_t tokens, int64_t hidden) {
    fe_tensor *dx, *dscale, *dbias;
    FE(fe_graph_layernorm_backward(g, dy, input(g, "x", tokens, hidden, FE_DATA_NOT_SET),
                                   input(g, "scale", 1, hidden, FE_DATA_FLOAT),
                                   input(g, "mean", tokens, 1, FE_DATA_FLOAT),
                                   input(g, "inv_variance", tokens, 1, FE_DATA_FLOAT), NULL, &dx, &dscale, &dbias));
    output(dx, "dx", FE_DATA_NOT_SET);
    output(dscale, "dscale", FE_DATA_FLOAT);
    output(dbias, "dbias", FE_DATA_FLOAT);
}

/* Builds the form's graphs (fused: one; split: two); false, with the message printed, when one
 * does not build. */
static int make_form(struct Form *f, const char *which, int split, int64_t tokens, int64_t hidden) {
    if (!strcmp(which, "residual")) {
        fe_graph *g = f->graph[f->graphs++] = bench_graph(split ? "residual_add" : "residual_layernorm", FE_DATA_BFLOAT16);
        fe_tensor *sum;
        FE(fe_graph_add(g, input(g, "x", tokens, hidden, FE_DATA_NOT_SET),
                        input(g, "residual", tokens, hidden, FE_DATA_NOT_SET), NULL, &sum));
        output(sum, "sum", FE_DATA_BFLOAT16);
        if (split) {
            g = f->graph[f->graphs++] = bench_graph("layernorm", FE_DATA_BFLOAT16);
            sum = input(g, "sum", tokens, hidden, FE_DATA_NOT_SET);
        }
        output(layernorm(g, sum, hidden, FE_DATA_BFLOAT16), "y", FE_DATA_NOT_SET);
    } else if (!strcmp(which, "bitmask")) {
        fe_graph *g = f->graph[f->graphs++] = bench_graph(split ? "layernorm" : "layernorm_bitmask", FE_DATA_FLOAT);
        fe_tensor *y = layernorm(g, input(g, "x", tokens, hidden, FE_DATA_NOT_SET), hidden, FE_DATA_FLOAT);
        if (split) {
            output(y, "y", FE_DATA_NOT_SET);
            g = f->graph[f->graphs++] = bench_graph("clamp_mask", FE_DATA_FLOAT);
            y = input(g, "y", tokens, hidden, FE_DATA_NOT_SET);
        }
        /* Split, the mask is left out: cuDNN 9.19 has no engine for the comparisons writing it
         * in a graph of their own (seen on H200), so the split form does less work. */
        clamp_and_mask(g, y, !split);
    } else if (!strcmp(which, "bitmask_backward")) {
        fe_graph *g = f->graph[f->graphs++] = bench_graph(split ? "masked_dy" : "bitmask_layernorm_backward", FE_DATA_FLOAT);
        fe_tensor *masked;
        FE(fe_graph_mul(g, input(g, "dy", tokens, hidden, FE_DATA_NOT_SET),
                        input(g, "mask", tokens, hidden, FE_DATA_BOOLEAN), NULL, &masked));
        if (split) {
            output(masked, "masked_dy", FE_DATA_FLOAT);
            g = f->graph[f->graphs++] = bench_graph("layernorm_backward", FE_DATA_FLOAT);
            masked = input(g, "masked_dy", tokens, hidden, FE_DATA_NOT_SET);
        }
        layernorm_backward(g, masked, tokens, hidden);
    } else {
        return -1;
    }
    for (int g = 0; g < f->graphs; ++g)
        if (fe_graph_build(f->graph[g], f->handle, NULL) != FE_OK) {
            printf("form=%s split=%d error=build message=\"%s\"\n", which, split, fe_last_error_message());
            return 0;
        }
    return 1;
}

/* Every input and output of the form's graphs bound to a slot of its name; the slots' buffers
 * made (random values, booleans alternating bits). */
static void bind(struct Form *f) {
    for (int g = 0; g < f->graphs; ++g) {
        size_t inputs, outputs;
        FE(fe_graph_input_count(f->graph[g], &inputs));
        FE(fe_graph_output_count(f->graph[g], &outputs));
        for (size_t i = 0; i < inputs + outputs; ++i) {
            fe_tensor *t;
            if (i < inputs)
                FE(fe_graph_input(f->graph[g], i, &t));
            else
                FE(fe_graph_output(f->graph[g], i - inputs, &t));
            const char *name;
            int64_t bytes;
            FE(fe_tensor_get_name(t, &name));
            FE(fe_tensor_size_bytes(t, &bytes));
            int s = 0;
            while (s < f->slot_count && strcmp(f->slots[s].name, name)) ++s;
            if (s == f->slot_count) f->slots[f->slot_count++] = (struct Slot){name, 0, t, {NULL}};
            if (bytes > f->slots[s].bytes) f->slots[s].bytes = bytes;
            f->tensors[g][f->bound[g]] = t;
            f->slot_of[g][f->bound[g]++] = s;
        }
    }
    for (int s = 0; s < f->slot_count; ++s)
        for (int set = 0; set < SETS; ++set) {
            fe_buffer *buffer; /* kept for the process's life */
            FE(fe_buffer_create(0, f->slots[s].bytes, &buffer));
            fe_data_type type;
            FE(fe_tensor_get_data_type(f->slots[s].typed, &type));
            if (type == FE_DATA_BOOLEAN)
                FE(fe_buffer_fill_bytes(buffer, 0x55));
            else
                fill_random(buffer, f->slots[s].typed, -1.f, 1.f);
            FE(fe_buffer_device_pointer(buffer, &f->slots[s].pointers[set]));
        }
}

static const char *engines(const struct Form *f, char *text, size_t size) {
    text[0] = '\0';
    for (int g = 0; g < f->graphs; ++g) {
        if (g) strncat(text, "+", size - strlen(text) - 1);
        strncat(text, engine_tag(f->graph[g]), size - strlen(text) - 1);
    }
    return text;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: norm_fusion_bench residual|bitmask|bitmask_backward TOKENS HIDDEN [rounds] [batches] [calls]\n");
        return 2;
    }
    const char *which = argv[1];
    const int64_t tokens = atoll(argv[2]), hidden = atoll(argv[3]);
    const int rounds = argc > 4 ? atoi(argv[4]) : 5, batches = argc > 5 ? atoi(argv[5]) : 20;
    const int calls = argc > 6 ? atoi(argv[6]) : 10;
    srand(1234);
    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    struct Form forms[2];
    memset(forms, 0, sizeof forms);
    for (int split = 0; split < 2; ++split) {
        forms[split].handle = handle;
        int made = make_form(&forms[split], which, split, tokens, hidden);
        if (made < 0) {
            fprintf(stderr, "norm_fusion_bench: unknown form %s\n", which);
            return 2;
        }
        if (!made) return 1;
        bind(&forms[split]);
    }
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FE(fe_handle_set_stream(handle, stream));
    float *us[2] = {malloc((size_t)rounds * sizeof(float)), malloc((size_t)rounds * sizeof(float))};
    for (int r = 0; r < rounds; ++r)
        for (int split = 0; split < 2; ++split)
            us[split][r] = (float)time_graph(enqueue, &forms[split], batches, calls, stream);
    double median[2];
    for (int split = 0; split < 2; ++split) {
        qsort(us[split], (size_t)rounds, sizeof(float), compare_floats);
        median[split] = us[split][rounds / 2];
    }
    char fused_engines[256], split_engines[256];
    printf("form=%s tokens=%lld hidden=%lld fused_us=%.2f fused_engine=%s split_us=%.2f split_engines=%s "
           "fused_speedup=%.3f rounds=%d\n",
           which, (long long)tokens, (long long)hidden, median[0], engines(&forms[0], fused_engines, sizeof fused_engines),
           median[1], engines(&forms[1], split_engines, sizeof split_engines), median[1] / median[0], rounds);
    FE(fe_handle_set_stream(handle, NULL));
    CU(cudaStreamDestroy(stream));
    for (int split = 0; split < 2; ++split) {
        for (int g = 0; g < forms[split].graphs; ++g) fe_graph_destroy(forms[split].graph[g]);
        free(us[split]);
    }
    fe_handle_destroy(handle);
    return 0;
}
