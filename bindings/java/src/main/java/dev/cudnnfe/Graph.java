package dev.cudnnfe;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Tensors and operations; once built, a runnable plan. Building is single-threaded; a built graph
 * may be executed from several threads, each with its own {@link Handle}. close() frees the graph,
 * its tensors and its plans.
 */
public final class Graph extends NativeObject {
    /** A graph with the default options (float intermediates and math; io types per tensor). */
    public Graph() {
        this(null);
    }

    public Graph(GraphOptions options) {
        super(create(options), "Graph");
    }

    /** Take ownership of a graph the library made (deserialized, from JSON or from the cache). */
    private Graph(long pointer) {
        super(pointer, "Graph");
    }

    private static long create(GraphOptions options) {
        long[] graph = new long[1];
        try (fe_graph_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_create(o, graph));
        }
        return graph[0];
    }

    @Override
    void destroy(long pointer) {
        NativeApi.fe_graph_destroy(pointer);
    }

    public String name() {
        String[] name = new String[1];
        Check.ok(NativeApi.fe_graph_get_name(pointer(), name));
        return name[0];
    }

    // ---- tensors -------------------------------------------------------------------------------

    /** An input of the graph's io type, packed (row-major). */
    public Tensor tensor(String name, long... dims) {
        return tensor(name, dims, null, DataType.NOT_SET);
    }

    /** An input; strides null means packed, type NOT_SET the graph's io type. */
    public Tensor tensor(String name, long[] dims, long[] strides, DataType type) {
        if (strides != null && strides.length != dims.length) {
            throw new CudnnFeException(Status.INVALID_ARGUMENT,
                    "tensor '" + name + "': " + dims.length + " dims but " + strides.length + " strides");
        }
        long[] tensor = new long[1];
        Check.ok(NativeApi.fe_graph_tensor(pointer(), name, dims.length, dims, strides, type.code, tensor));
        return new Tensor(this, tensor[0]);
    }

    /** A host constant baked into the plan, broadcast by the pointwise operation that uses it. */
    public Tensor scalar(String name, double value, DataType type) {
        long[] tensor = new long[1];
        Check.ok(NativeApi.fe_graph_scalar(pointer(), name, value, type.code, tensor));
        return new Tensor(this, tensor[0]);
    }

    public Tensor tensorByName(String name) {
        long[] tensor = new long[1];
        Check.ok(NativeApi.fe_graph_tensor_by_name(pointer(), name, tensor));
        return new Tensor(this, tensor[0]);
    }

    /** Inputs in creation order (the order of {@link #executePositional}). */
    public List<Tensor> inputs() {
        long[] count = new long[1];
        Check.ok(NativeApi.fe_graph_input_count(pointer(), count));
        List<Tensor> inputs = new ArrayList<>();
        long[] tensor = new long[1];
        for (long i = 0; i < count[0]; ++i) {
            Check.ok(NativeApi.fe_graph_input(pointer(), i, tensor));
            inputs.add(new Tensor(this, tensor[0]));
        }
        return inputs;
    }

    /** Outputs in the order they were marked (after the inputs in positional execution). */
    public List<Tensor> outputs() {
        long[] count = new long[1];
        Check.ok(NativeApi.fe_graph_output_count(pointer(), count));
        List<Tensor> outputs = new ArrayList<>();
        long[] tensor = new long[1];
        for (long i = 0; i < count[0]; ++i) {
            Check.ok(NativeApi.fe_graph_output(pointer(), i, tensor));
            outputs.add(new Tensor(this, tensor[0]));
        }
        return outputs;
    }

    // ---- operations (each result is virtual until setOutput(true)) -----------------------------

    public Tensor convFprop(Tensor image, Tensor weight, ConvOptions options) {
        long[] y = new long[1];
        try (fe_conv_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_conv_fprop(pointer(), image.pointer(), weight.pointer(), o, y));
        }
        return new Tensor(this, y[0]);
    }

    public Tensor matmul(Tensor a, Tensor b) {
        return matmul(a, b, null);
    }

    public Tensor matmul(Tensor a, Tensor b, MatmulOptions options) {
        long[] c = new long[1];
        try (fe_matmul_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_matmul(pointer(), a.pointer(), b.pointer(), o, c));
        }
        return new Tensor(this, c[0]);
    }

    /** Unary modes use in0; binary in0 and in1; BINARY_SELECT in0, in1 and the mask in2. Unused: null. */
    public Tensor pointwise(PointwiseMode mode, Tensor in0, Tensor in1, Tensor in2, PointwiseOptions options) {
        long[] y = new long[1];
        try (fe_pointwise_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_pointwise(pointer(), mode.code, in0.pointer(), optional(in1), optional(in2), o, y));
        }
        return new Tensor(this, y[0]);
    }

    public Tensor pointwise(PointwiseMode mode, Tensor in0) {
        return pointwise(mode, in0, null, null, null);
    }

    public Tensor pointwise(PointwiseMode mode, Tensor in0, Tensor in1) {
        return pointwise(mode, in0, in1, null, null);
    }

    public Tensor bias(Tensor input, Tensor bias) {
        return bias(input, bias, null);
    }

    /** input + bias; options (nullable) name the node and set the compute type. */
    public Tensor bias(Tensor input, Tensor bias, PointwiseOptions options) {
        return convenience(NativeApi::fe_graph_bias, input, bias, options);
    }

    public Tensor scale(Tensor input, Tensor scale) {
        return scale(input, scale, null);
    }

    public Tensor scale(Tensor input, Tensor scale, PointwiseOptions options) {
        return convenience(NativeApi::fe_graph_scale, input, scale, options);
    }

    public Tensor add(Tensor a, Tensor b) {
        return add(a, b, null);
    }

    public Tensor add(Tensor a, Tensor b, PointwiseOptions options) {
        return convenience(NativeApi::fe_graph_add, a, b, options);
    }

    public Tensor mul(Tensor a, Tensor b) {
        return mul(a, b, null);
    }

    public Tensor mul(Tensor a, Tensor b, PointwiseOptions options) {
        return convenience(NativeApi::fe_graph_mul, a, b, options);
    }

    public Tensor relu(Tensor input) {
        return relu(input, null);
    }

    /** options (nullable) also carry the clips and the leaky slope. */
    public Tensor relu(Tensor input, PointwiseOptions options) {
        return convenience(NativeApi::fe_graph_relu, input, options);
    }

    public Tensor gelu(Tensor input) {
        return gelu(input, null);
    }

    public Tensor gelu(Tensor input, PointwiseOptions options) {
        return convenience(NativeApi::fe_graph_gelu, input, options);
    }

    public Tensor silu(Tensor input) {
        return silu(input, null);
    }

    public Tensor silu(Tensor input, PointwiseOptions options) {
        return convenience(NativeApi::fe_graph_silu, input, options);
    }

    private interface BinaryConvenience {
        int call(long graph, long a, long b, fe_pointwise_options options, long[] y);
    }

    private interface UnaryConvenience {
        int call(long graph, long input, fe_pointwise_options options, long[] y);
    }

    private Tensor convenience(BinaryConvenience f, Tensor a, Tensor b, PointwiseOptions options) {
        long[] y = new long[1];
        try (fe_pointwise_options o = options == null ? null : options.toNative()) {
            Check.ok(f.call(pointer(), a.pointer(), b.pointer(), o, y));
        }
        return new Tensor(this, y[0]);
    }

    private Tensor convenience(UnaryConvenience f, Tensor input, PointwiseOptions options) {
        long[] y = new long[1];
        try (fe_pointwise_options o = options == null ? null : options.toNative()) {
            Check.ok(f.call(pointer(), input.pointer(), o, y));
        }
        return new Tensor(this, y[0]);
    }

    /** Reduce over options' axes (required); reduced dims become 1. */
    public Tensor reduction(Tensor input, ReductionMode mode, ReductionOptions options) {
        long[] y = new long[1];
        try (fe_reduction_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_reduction(pointer(), input.pointer(), mode.code, o, y));
        }
        return new Tensor(this, y[0]);
    }

    /** Scaled dot-product attention, forward; stats are null unless options ask for them. */
    public SdpaResult sdpa(Tensor q, Tensor k, Tensor v, SdpaOptions options) {
        long[] o = new long[1];
        long[] stats = new long[1];
        try (fe_sdpa_options nativeOptions = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_sdpa(pointer(), q.pointer(), k.pointer(), v.pointer(), nativeOptions, o, stats));
        }
        return new SdpaResult(new Tensor(this, o[0]), stats[0] == 0 ? null : new Tensor(this, stats[0]));
    }

    /** Attention backward: dQ, dK, dV from the forward's inputs, output, stats and dO. */
    public SdpaGradients sdpaBackward(Tensor q, Tensor k, Tensor v, Tensor o, Tensor dO, Tensor stats,
                                      SdpaBackwardOptions options) {
        long[] dq = new long[1];
        long[] dk = new long[1];
        long[] dv = new long[1];
        try (fe_sdpa_backward_options nativeOptions = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_sdpa_backward(pointer(), q.pointer(), k.pointer(), v.pointer(), o.pointer(),
                    dO.pointer(), stats.pointer(), nativeOptions, dq, dk, dv));
        }
        return new SdpaGradients(new Tensor(this, dq[0]), new Tensor(this, dk[0]), new Tensor(this, dv[0]));
    }

    // ---- convolution backward and variants (ConvOptions as for the forward pass) ---------------

    /**
     * Data gradient: dx from dy [N, K, out...] and the weight, with the forward pass's options. dxDims
     * (the image's dims) are required: with a stride above 1 several image sizes give the same dy.
     */
    public Tensor convDgrad(Tensor dy, Tensor weight, long[] dxDims, ConvOptions options) {
        long[] dx = new long[1];
        try (fe_conv_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_conv_dgrad(pointer(), dy.pointer(), weight.pointer(), dxDims.length, dxDims, o, dx));
        }
        return new Tensor(this, dx[0]);
    }

    /**
     * Weight gradient: dw from the image and dy, with the forward pass's options. dwDims may be null
     * when exactly one filter size gives dy (always with stride 1).
     */
    public Tensor convWgrad(Tensor image, Tensor dy, long[] dwDims, ConvOptions options) {
        long[] dw = new long[1];
        try (fe_conv_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_conv_wgrad(pointer(), image.pointer(), dy.pointer(),
                    dwDims == null ? 0 : dwDims.length, dwDims, o, dw));
        }
        return new Tensor(this, dw[0]);
    }

    /** Transposed convolution (upsampling); weight [C_in, C_out / groups, filter...]. */
    public Tensor convTranspose(Tensor image, Tensor weight, ConvOptions options) {
        long[] y = new long[1];
        try (fe_conv_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_conv_transpose(pointer(), image.pointer(), weight.pointer(), o, y));
        }
        return new Tensor(this, y[0]);
    }

    // ---- normalizations ------------------------------------------------------------------------

    private interface NormCall {
        int run(long graph, long x, long scale, long bias, fe_norm_options options, long[] y, long[] mean, long[] inv);
    }

    private NormResult norm(NormCall call, Tensor x, Tensor scale, Tensor bias, NormOptions options) {
        long[] y = new long[1];
        long[] mean = new long[1];
        long[] inv = new long[1];
        try (fe_norm_options o = options == null ? null : options.toNative()) {
            Check.ok(call.run(pointer(), x.pointer(), scale.pointer(), optional(bias), o, y, mean, inv));
        }
        return new NormResult(new Tensor(this, y[0]), wrap(mean[0]), wrap(inv[0]));
    }

    /** Layer normalization; in training also the mean and inverse variance. */
    public NormResult layernorm(Tensor x, Tensor scale, Tensor bias, NormOptions options) {
        return norm(NativeApi::fe_graph_layernorm, x, scale, bias, options);
    }

    /** RMS normalization (bias may be null); in training the result's invVariance is the inverse RMS. */
    public NormResult rmsnorm(Tensor x, Tensor scale, Tensor bias, NormOptions options) {
        return norm((g, xp, sp, bp, o, y, mean, inv) -> NativeApi.fe_graph_rmsnorm(g, xp, sp, bp, o, y, inv),
                x, scale, bias, options);
    }

    /** Instance normalization: per image and channel, over the spatial dims. */
    public NormResult instancenorm(Tensor x, Tensor scale, Tensor bias, NormOptions options) {
        return norm(NativeApi::fe_graph_instancenorm, x, scale, bias, options);
    }

    /** Adaptive layer normalization: scale and (nullable) bias may differ per sample. */
    public NormResult adalayernorm(Tensor x, Tensor scale, Tensor bias, NormOptions options) {
        return norm(NativeApi::fe_graph_adalayernorm, x, scale, bias, options);
    }

    /** Batch normalization, training: per-channel statistics over the batch and spatial dims. */
    public BatchnormResult batchnorm(Tensor x, Tensor scale, Tensor bias, BatchnormOptions options) {
        long[] y = new long[1];
        long[] mean = new long[1];
        long[] inv = new long[1];
        long[] nextMean = new long[1];
        long[] nextVar = new long[1];
        try (fe_batchnorm_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_batchnorm(pointer(), x.pointer(), scale.pointer(), bias.pointer(), o, y, mean, inv,
                    nextMean, nextVar));
        }
        return new BatchnormResult(new Tensor(this, y[0]), wrap(mean[0]), wrap(inv[0]), wrap(nextMean[0]), wrap(nextVar[0]));
    }

    /** Batch normalization, inference, from given statistics (inv_variance = 1 / sqrt(var + eps)). */
    public Tensor batchnormInference(Tensor x, Tensor mean, Tensor invVariance, Tensor scale, Tensor bias, String name) {
        long[] y = new long[1];
        try (fe_batchnorm_inference_options o = new fe_batchnorm_inference_options()) {
            if (name != null) o.setName(name);
            Check.ok(NativeApi.fe_graph_batchnorm_inference(pointer(), x.pointer(), mean.pointer(), invVariance.pointer(),
                    scale.pointer(), bias.pointer(), o, y));
        }
        return new Tensor(this, y[0]);
    }

    private interface NormBackwardCall {
        int run(long graph, long dy, long x, long scale, long mean, long inv, fe_norm_backward_options options,
                long[] dx, long[] dscale, long[] dbias);
    }

    private NormGradients normBackward(NormBackwardCall call, Tensor dy, Tensor x, Tensor scale, Tensor mean,
                                       Tensor invVariance, boolean zeroCenteredGamma, boolean withBias) {
        long[] dx = new long[1];
        long[] dscale = new long[1];
        long[] dbias = withBias ? new long[1] : null;
        try (fe_norm_backward_options o = new fe_norm_backward_options()) {
            o.setZero_centered_gamma(zeroCenteredGamma ? 1 : 0);
            Check.ok(call.run(pointer(), dy.pointer(), x.pointer(), scale.pointer(), optional(mean), invVariance.pointer(),
                    o, dx, dscale, dbias));
        }
        return new NormGradients(new Tensor(this, dx[0]), new Tensor(this, dscale[0]), dbias == null ? null : wrap(dbias[0]));
    }

    /** Layer normalization backward, from the forward's x, scale and training statistics. */
    public NormGradients layernormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance,
                                           boolean zeroCenteredGamma) {
        return normBackward(NativeApi::fe_graph_layernorm_backward, dy, x, scale, mean, invVariance, zeroCenteredGamma, true);
    }

    /** RMS normalization backward, from the forward's inverse RMS; withBias: the forward had a bias. */
    public NormGradients rmsnormBackward(Tensor dy, Tensor x, Tensor scale, Tensor invRms, boolean zeroCenteredGamma,
                                         boolean withBias) {
        return normBackward((g, dyp, xp, sp, mean, inv, o, dx, ds, db) -> NativeApi.fe_graph_rmsnorm_backward(g, dyp, xp, sp,
                inv, o, dx, ds, db), dy, x, scale, null, invRms, zeroCenteredGamma, withBias);
    }

    public NormGradients instancenormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance) {
        return normBackward(NativeApi::fe_graph_instancenorm_backward, dy, x, scale, mean, invVariance, false, true);
    }

    /** AdaLN backward; withBias: the forward had a bias. */
    public NormGradients adalayernormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance,
                                              boolean withBias) {
        return normBackward(NativeApi::fe_graph_adalayernorm_backward, dy, x, scale, mean, invVariance, false, withBias);
    }

    /** Batch normalization backward, from the forward's batch statistics. */
    public NormGradients batchnormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance) {
        return normBackward(NativeApi::fe_graph_batchnorm_backward, dy, x, scale, mean, invVariance, false, true);
    }

    // ---- softmax, random numbers, FP8 and block scaling ----------------------------------------

    /**
     * Softmax over the last dim; first is y, second the float log-sum-exp statistics when
     * generateStats, else null. On its own cuDNN runs it only fused between two matmuls.
     */
    public TensorPair softmax(Tensor x, boolean generateStats, String name) {
        long[] y = new long[1];
        long[] stats = new long[1];
        try (fe_softmax_options o = new fe_softmax_options()) {
            if (name != null) o.setName(name);
            o.setGenerate_stats(generateStats ? 1 : 0);
            Check.ok(NativeApi.fe_graph_softmax(pointer(), x.pointer(), o, y, stats));
        }
        return new TensorPair(new Tensor(this, y[0]), wrap(stats[0]));
    }

    /**
     * Random numbers (Philox) of the given dims; seed and offset are int64 tensors of one element.
     * type NOT_SET: the graph's intermediate type.
     */
    public Tensor rng(Tensor seed, Tensor offset, RngDistribution distribution, double a, double b, long[] dims,
                      DataType type) {
        if (dims.length < 1 || dims.length > 8) {
            throw new CudnnFeException(Status.INVALID_ARGUMENT, "rng: " + dims.length + " dims, expected 1 to 8");
        }
        long[] y = new long[1];
        try (fe_rng_options o = new fe_rng_options()) {
            o.setDistribution(distribution.code);
            switch (distribution) {
                case BERNOULLI: o.setProbability(a); break;
                case UNIFORM: o.setMin(a); o.setMax(b); break;
                default: o.setMean(a); o.setStd(b); break;
            }
            o.setNdims(dims.length);
            o.setDims(Arrays.copyOf(dims, 8));
            o.setData_type(type.code);
            Check.ok(NativeApi.fe_graph_rng(pointer(), seed.pointer(), offset.pointer(), o, y));
        }
        return new Tensor(this, y[0]);
    }

    /**
     * FP8 matmul: C = (A * descaleA) x (B * descaleB) * scaleC; first is C, second the float amax
     * of the product before quantization. The scales are one-element float tensors.
     */
    public TensorPair matmulFp8(Tensor a, Tensor b, Tensor descaleA, Tensor descaleB, Tensor scaleC, MatmulOptions options) {
        long[] c = new long[1];
        long[] amax = new long[1];
        try (fe_matmul_fp8_scales scales = new fe_matmul_fp8_scales();
             fe_matmul_options o = options == null ? null : options.toNative()) {
            scales.setDescale_a(descaleA.pointer());
            scales.setDescale_b(descaleB.pointer());
            scales.setScale_c(scaleC.pointer());
            Check.ok(NativeApi.fe_graph_matmul_fp8(pointer(), a.pointer(), b.pointer(), scales, o, c, amax));
        }
        return new TensorPair(new Tensor(this, c[0]), wrap(amax[0]));
    }

    /** Block scaling (MXFP8) quantize: first the FP8 values, second the per-block E8M0 scales. */
    public TensorPair blockScaleQuantize(Tensor x, int blockSize, String name) {
        long[] y = new long[1];
        long[] scale = new long[1];
        try (fe_block_scale_options o = blockScaleOptions(blockSize, name)) {
            Check.ok(NativeApi.fe_graph_block_scale_quantize(pointer(), x.pointer(), o, y, scale));
        }
        return new TensorPair(new Tensor(this, y[0]), wrap(scale[0]));
    }

    /** Block scaling dequantize: x times its per-block scales. */
    public Tensor blockScaleDequantize(Tensor x, Tensor scale, int blockSize, String name) {
        long[] y = new long[1];
        try (fe_block_scale_options o = blockScaleOptions(blockSize, name)) {
            Check.ok(NativeApi.fe_graph_block_scale_dequantize(pointer(), x.pointer(), scale.pointer(), o, y));
        }
        return new Tensor(this, y[0]);
    }

    private static fe_block_scale_options blockScaleOptions(int blockSize, String name) {
        fe_block_scale_options o = new fe_block_scale_options();
        if (blockSize > 0) o.setBlock_size(blockSize);
        if (name != null) o.setName(name);
        return o;
    }

    /** FP8 attention forward (Hopper and later); stats only when the options ask for them. */
    public SdpaFp8Result sdpaFp8(Tensor q, Tensor k, Tensor v, SdpaFp8Scales scales, SdpaOptions options) {
        long[] o = new long[1];
        long[] stats = new long[1];
        long[] amaxS = new long[1];
        long[] amaxO = new long[1];
        try (fe_sdpa_fp8_scales nativeScales = scales.toNative();
             fe_sdpa_options nativeOptions = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_sdpa_fp8(pointer(), q.pointer(), k.pointer(), v.pointer(), nativeScales, nativeOptions,
                    o, stats, amaxS, amaxO));
        }
        return new SdpaFp8Result(new Tensor(this, o[0]), wrap(stats[0]), wrap(amaxS[0]), wrap(amaxO[0]));
    }

    /** FP8 attention backward (Hopper and later). */
    public SdpaFp8Gradients sdpaFp8Backward(Tensor q, Tensor k, Tensor v, Tensor o, Tensor dO, Tensor stats,
                                            SdpaFp8BackwardScales scales, SdpaBackwardOptions options) {
        long[][] out = new long[7][1];
        try (fe_sdpa_fp8_backward_scales nativeScales = scales.toNative();
             fe_sdpa_backward_options nativeOptions = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_sdpa_fp8_backward(pointer(), q.pointer(), k.pointer(), v.pointer(), o.pointer(),
                    dO.pointer(), stats.pointer(), nativeScales, nativeOptions, out[0], out[1], out[2], out[3], out[4],
                    out[5], out[6]));
        }
        return new SdpaFp8Gradients(wrap(out[0][0]), wrap(out[1][0]), wrap(out[2][0]), wrap(out[3][0]), wrap(out[4][0]),
                wrap(out[5][0]), wrap(out[6][0]));
    }

    /** How attention node `nodeName` (null: the first) was lowered, once its operation graph exists. */
    public SdpaImplementation attentionImplementation(String nodeName) {
        int[] implementation = new int[1];
        Check.ok(NativeApi.fe_graph_attention_implementation(pointer(), nodeName, implementation));
        return SdpaImplementation.of(implementation[0]);
    }

    private Tensor wrap(long tensor) {
        return tensor == 0 ? null : new Tensor(this, tensor);
    }

    // ---- resampling (pooling) and transpose -----------------------------------------------------

    /**
     * Batch normalization's statistics of x [N, C, spatial...]: the per-channel sum (first) and sum
     * of squares (second), float [1, C, 1, ...]. cuDNN runs it fused after the convolution that
     * produces x. options may be null.
     */
    public TensorPair genstats(Tensor x, GenstatsOptions options) {
        long[] sum = new long[1];
        long[] sqSum = new long[1];
        try (fe_genstats_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_genstats(pointer(), x.pointer(), o, sum, sqSum));
        }
        return new TensorPair(new Tensor(this, sum[0]), new Tensor(this, sqSum[0]));
    }

    /** Pooling or upsampling of x's spatial dims; first is y, second the max-pooling index (or null). */
    public TensorPair resample(Tensor x, ResampleOptions options) {
        long[] y = new long[1];
        long[] index = new long[1];
        try (fe_resample_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_resample(pointer(), x.pointer(), o, y, index));
        }
        return new TensorPair(new Tensor(this, y[0]), wrap(index[0]));
    }

    /**
     * Resampling backward: dx from dy with the forward's options. x, y and index may be null (see
     * the header); dxDims may be null when x is given.
     */
    public Tensor resampleBackward(Tensor dy, Tensor x, Tensor y, Tensor index, long[] dxDims, ResampleOptions options) {
        long[] dx = new long[1];
        try (fe_resample_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_resample_backward(pointer(), dy.pointer(), optional(x), optional(y), optional(index),
                    dxDims == null ? 0 : dxDims.length, dxDims, o, dx));
        }
        return new Tensor(this, dx[0]);
    }

    /** y = x.permute(permutation). */
    public Tensor transpose(Tensor x, long[] permutation, String name) {
        long[] y = new long[1];
        try (fe_transpose_options o = new fe_transpose_options()) {
            if (name != null) o.setName(name);
            Check.ok(NativeApi.fe_graph_transpose(pointer(), x.pointer(), permutation.length, permutation, o, y));
        }
        return new Tensor(this, y[0]);
    }

    /** y = x viewed under other dims (x packed row-major; the same element count). */
    public Tensor reshape(Tensor x, long[] dims, String name) {
        long[] y = new long[1];
        try (fe_reshape_options o = new fe_reshape_options()) {
            if (name != null) o.setName(name);
            Check.ok(NativeApi.fe_graph_reshape(pointer(), x.pointer(), dims.length, dims, o, y));
        }
        return new Tensor(this, y[0]);
    }

    /**
     * y = x[start[0]:end[0], ...] (end exclusive): a view of graph input x read in place, for other
     * operations of the graph to read (not an output).
     */
    public Tensor slice(Tensor x, long[] start, long[] end, String name) {
        sameLength("slice", start.length, "start entries", end.length, "end entries");
        long[] y = new long[1];
        try (fe_slice_options o = new fe_slice_options()) {
            if (name != null) o.setName(name);
            Check.ok(NativeApi.fe_graph_slice(pointer(), x.pointer(), start.length, start, end, o, y));
        }
        return new Tensor(this, y[0]);
    }

    /**
     * The inputs joined along axis; inPlaceIndex names the input already inside y's buffer, -1 for
     * none.
     */
    public Tensor concatenate(Tensor[] inputs, long axis, long inPlaceIndex, String name) {
        long[] pointers = new long[inputs.length];
        for (int i = 0; i < inputs.length; ++i) pointers[i] = inputs[i].pointer();
        long[] y = new long[1];
        try (fe_concatenate_options o = new fe_concatenate_options()) {
            if (name != null) o.setName(name);
            o.setIn_place_index(inPlaceIndex);
            Check.ok(NativeApi.fe_graph_concatenate(pointer(), pointers.length, pointers, axis, o, y));
        }
        return new Tensor(this, y[0]);
    }

    // ---- building ------------------------------------------------------------------------------

    /** Validate, lower, query heuristics (A, then FALLBACK), check support and build a plan. */
    public void build(Handle handle) {
        build(handle, null);
    }

    /** handle may be null when the options (or the graph) carry device properties (deviceless). */
    public void build(Handle handle, BuildOptions options) {
        try (fe_build_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_build(pointer(), optional(handle), o));
        }
    }

    /** Build for the GPU this JSON describes (captured with CudnnFe.capturedDeviceProperties). */
    public void setDeviceProperties(String json) {
        Check.ok(NativeApi.fe_graph_set_device_properties(pointer(), json));
    }

    public void validate() {
        Check.ok(NativeApi.fe_graph_validate(pointer()));
    }

    /** handle may be null. */
    public void buildOperationGraph(Handle handle) {
        Check.ok(NativeApi.fe_graph_build_operation_graph(pointer(), optional(handle)));
    }

    /** No modes: A, then FALLBACK. */
    public void createExecutionPlans(HeurMode... modes) {
        int[] codes = modes.length == 0 ? null : HeurMode.codes(modes);
        Check.ok(NativeApi.fe_graph_create_execution_plans(pointer(), codes, modes.length));
    }

    public void deselectWorkspaceGreaterThan(long maxBytes) {
        Check.ok(NativeApi.fe_graph_deselect_workspace_greater_than(pointer(), maxBytes));
    }

    /** Throws NOT_SUPPORTED, with cuDNN's reason, if no candidate is viable. */
    public void checkSupport() {
        Check.ok(NativeApi.fe_graph_check_support(pointer()));
    }

    public void buildPlans(BuildPolicy policy) {
        Check.ok(NativeApi.fe_graph_build_plans(pointer(), policy.code));
    }

    // ---- engines and knobs: any engine config as a candidate -----------------------------------

    /**
     * How many engines cuDNN has for the operation graph (global indices 0 to count - 1; not every
     * one runs it). After {@link #buildOperationGraph}.
     */
    public long engineCount() {
        long[] count = new long[1];
        Check.ok(NativeApi.fe_graph_engine_count(pointer(), count));
        return count[0];
    }

    /** The knobs engine `engine` has for this graph, by type; NOT_SUPPORTED if it does not run the graph. */
    public List<KnobRange> engineKnobs(long engine) {
        long[] count = new long[1];
        int status = NativeApi.fe_swig_engine_knobs(pointer(), engine, null, null, null, null, 0, count);
        if (status != Status.BUFFER_TOO_SMALL.code) Check.ok(status);
        int n = (int) count[0];
        int[] types = new int[n];
        long[] minValues = new long[n];
        long[] maxValues = new long[n];
        long[] strides = new long[n];
        Check.ok(NativeApi.fe_swig_engine_knobs(pointer(), engine, types, minValues, maxValues, strides, n, count));
        List<KnobRange> knobs = new ArrayList<>();
        for (int i = 0; i < (int) count[0]; ++i) knobs.add(new KnobRange(types[i], minValues[i], maxValues[i], strides[i]));
        return knobs;
    }

    /**
     * Add engine `engine` with these knob settings (knobs left out keep the engine's defaults) as a
     * candidate: after {@link #buildOperationGraph} (the candidates are then only those added) or
     * {@link #createExecutionPlans} (after the heuristics' ones), before {@link #checkSupport}.
     * NOT_SUPPORTED, with cuDNN's reason, if cuDNN refuses the setting; INVALID_ARGUMENT for a
     * knob set twice, an unknown knob type or a duplicate of a candidate the graph has.
     */
    public void addCandidate(long engine, KnobChoice... knobs) {
        addCandidate(engine, Arrays.asList(knobs));
    }

    public void addCandidate(long engine, List<KnobChoice> knobs) {
        int[] types = new int[knobs.size()];
        long[] values = new long[knobs.size()];
        for (int i = 0; i < types.length; ++i) {
            types[i] = knobs.get(i).type;
            values[i] = knobs.get(i).value;
        }
        Check.ok(NativeApi.fe_swig_add_candidate(pointer(), engine, types, values, types.length));
    }

    public long candidateCount() {
        long[] count = new long[1];
        Check.ok(NativeApi.fe_graph_candidate_count(pointer(), count));
        return count[0];
    }

    public long viableCount() {
        long[] count = new long[1];
        Check.ok(NativeApi.fe_graph_viable_count(pointer(), count));
        return count[0];
    }

    public long planCount() {
        long[] count = new long[1];
        Check.ok(NativeApi.fe_graph_plan_count(pointer(), count));
        return count[0];
    }

    /** Workspace bytes the chosen plan needs. */
    public long workspaceSize() {
        long[] bytes = new long[1];
        Check.ok(NativeApi.fe_graph_workspace_size(pointer(), bytes));
        return bytes[0];
    }

    public long engineIndex() {
        long[] index = new long[1];
        Check.ok(NativeApi.fe_graph_engine_index(pointer(), index));
        return index[0];
    }

    /** The chosen engine and its knobs, e.g. "eng12_k2=3_k3=0". */
    public String engineTag() {
        String[] tag = new String[1];
        Check.ok(NativeApi.fe_graph_engine_tag(pointer(), tag));
        return tag[0];
    }

    public boolean isBuilt() {
        int[] flag = new int[1];
        Check.ok(NativeApi.fe_graph_is_built(pointer(), flag));
        return flag[0] != 0;
    }

    /** Tensors, operations and, once built, the engine and workspace, one per line. */
    public String describe() {
        long graph = pointer();
        return CudnnFe.Text.read((buffer, length) -> NativeApi.fe_graph_describe(graph, buffer,
                buffer == null ? 0 : buffer.length, length));
    }

    // ---- autotuning, plan cache and serialization ----------------------------------------------

    /**
     * Time every built plan (built with {@link BuildPolicy#ALL}, or with autotuning) on the handle's
     * GPU and make the fastest the one that executes; returns its median in microseconds.
     * warmup below 0: 3; iterations 0 or less: 10.
     */
    public double autotune(Handle handle, int warmup, int iterations) {
        double[] best = new double[1];
        Check.ok(NativeApi.fe_graph_autotune(pointer(), handle.pointer(), warmup, iterations, best));
        return best[0];
    }

    /** Median time of built plan `index` from the last autotune (index 0 executes). */
    public double planTimeUs(long index) {
        double[] us = new double[1];
        Check.ok(NativeApi.fe_graph_plan_time_us(pointer(), index, us));
        return us[0];
    }

    /**
     * A built graph ready to execute, registered by a build with {@link BuildOptions#cacheKey};
     * NOT_FOUND if none. handle may be null (deviceless graphs). The caller closes it.
     */
    public static Graph fromCache(Handle handle, String cacheKey) {
        long[] graph = new long[1];
        Check.ok(NativeApi.fe_graph_from_cache(optional(handle), cacheKey, graph));
        return new Graph(graph[0]);
    }

    /**
     * The built graph as self-contained, versioned bytes (the graph, the chosen plan, the uid
     * layout, the library and cuDNN versions, the GPU's fingerprint and a checksum).
     */
    public byte[] serialize() {
        long graph = pointer();
        return CudnnFe.Text.readBytes((buffer, length) -> NativeApi.fe_graph_serialize(graph, buffer,
                buffer == null ? 0 : buffer.length, length));
    }

    /**
     * A graph ready to execute from {@link #serialize}'s bytes, with no heuristics and no
     * compilation. handle may be null when the options carry device properties; options may be
     * null. Corrupted bytes throw INVALID_ARGUMENT; a version or GPU mismatch under
     * {@link MismatchPolicy#REFUSE} throws NOT_SUPPORTED naming it.
     */
    public static Graph deserialize(Handle handle, byte[] data, DeserializeOptions options) {
        long[] graph = new long[1];
        try (fe_deserialize_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_deserialize(optional(handle), data, data.length, o, graph));
        }
        return new Graph(graph[0]);
    }

    /** A readable description of serialized bytes (header, graph, engine) without loading the plan. */
    public static String describeSerialized(byte[] data) {
        return CudnnFe.Text.read((buffer, length) -> NativeApi.fe_serialized_describe(data, data.length, buffer,
                buffer == null ? 0 : buffer.length, length));
    }

    /** The graph as JSON text: defaults, tensors with uids, operations with every attribute, outputs. */
    public String toJson() {
        long graph = pointer();
        return CudnnFe.Text.read((buffer, length) -> NativeApi.fe_graph_to_json(graph, buffer,
                buffer == null ? 0 : buffer.length, length));
    }

    /** A new graph from JSON text; errors name the line and the field. */
    public static Graph fromJson(String json) {
        long[] graph = new long[1];
        Check.ok(NativeApi.fe_graph_from_json(json, json.getBytes(java.nio.charset.StandardCharsets.UTF_8).length,
                graph));
        return new Graph(graph[0]);
    }

    // ---- execution (workspace 0: the handle's own) ---------------------------------------------

    /** Bind tensors to device pointers (16-byte aligned), then enqueue on the handle's stream. */
    public void execute(Handle handle, Tensor[] tensors, long[] devicePointers, long workspace) {
        sameLength("execute", tensors.length, "tensors", devicePointers.length, "device pointers");
        long[] pointers = new long[tensors.length];
        for (int i = 0; i < tensors.length; ++i) pointers[i] = tensors[i].pointer();
        Check.ok(NativeApi.fe_graph_execute(pointer(), handle.pointer(), pointers, devicePointers, pointers.length,
                workspace));
    }

    /** Bind tensors to buffers (each checked to be large enough). */
    public void execute(Handle handle, Map<Tensor, DeviceBuffer> buffers) {
        Tensor[] tensors = buffers.keySet().toArray(new Tensor[0]);
        DeviceBuffer[] values = new DeviceBuffer[tensors.length];
        for (int i = 0; i < tensors.length; ++i) values[i] = buffers.get(tensors[i]);
        executeBuffers(handle, tensors, values, 0);
    }

    public void executeBuffers(Handle handle, Tensor[] tensors, DeviceBuffer[] buffers, long workspace) {
        sameLength("executeBuffers", tensors.length, "tensors", buffers.length, "buffers");
        long[] tensorPointers = new long[tensors.length];
        long[] bufferPointers = new long[buffers.length];
        for (int i = 0; i < tensors.length; ++i) tensorPointers[i] = tensors[i].pointer();
        for (int i = 0; i < buffers.length; ++i) bufferPointers[i] = buffers[i].pointer();
        Check.ok(NativeApi.fe_graph_execute_buffers(pointer(), handle.pointer(), tensorPointers, bufferPointers,
                tensorPointers.length, workspace));
    }

    /** Bind by uid. */
    public void executeByUid(Handle handle, long[] uids, long[] devicePointers, long workspace) {
        sameLength("executeByUid", uids.length, "uids", devicePointers.length, "device pointers");
        Check.ok(NativeApi.fe_graph_execute_by_uid(pointer(), handle.pointer(), uids, devicePointers, uids.length,
                workspace));
    }

    /** Bind positionally: {@link #inputs()} in order, then {@link #outputs()}. */
    public void executePositional(Handle handle, long[] devicePointers, long workspace) {
        Check.ok(NativeApi.fe_graph_execute_positional(pointer(), handle.pointer(), devicePointers,
                devicePointers.length, workspace));
    }

    private static void sameLength(String call, int n, String what, int m, String other) {
        if (n != m) throw new CudnnFeException(Status.INVALID_ARGUMENT, call + ": " + n + " " + what + " but " + m + " " + other);
    }

    private static long optional(Tensor tensor) {
        return tensor == null ? 0 : tensor.pointer();
    }

    private static long optional(Handle handle) {
        return handle == null ? 0 : handle.pointer();
    }
}
