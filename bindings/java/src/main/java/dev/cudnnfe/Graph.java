package dev.cudnnfe;

import java.util.Map;

/**
 * Tensors and operations; once built, a runnable plan. Building is single-threaded; a built graph
 * may be executed from several threads, each with its own {@link Handle}. close() frees the graph,
 * its tensors and its plans.
 */
public final class Graph extends GraphCalls {
    /** A graph with the default options (float intermediates and math; io types per tensor). */
    public Graph() {
        this(null);
    }

    public Graph(GraphOptions options) {
        super(create(options));
    }

    /** Take ownership of a graph the library made (deserialized, from JSON or from the cache). */
    Graph(long pointer) {
        super(pointer);
    }

    private static long create(GraphOptions options) {
        long[] graph = new long[1];
        try (fe_graph_options o = options == null ? null : options.toNative()) {
            Check.ok(NativeApi.fe_graph_create(o, graph));
        }
        return graph[0];
    }

    // ---- tensors -------------------------------------------------------------------------------

    /** An input of the graph's io type, packed (row-major). */
    public Tensor tensor(String name, long... dims) {
        return tensor(name, dims, null, DataType.NOT_SET);
    }

    /** An input; strides null means packed, type NOT_SET the graph's io type. */
    public Tensor tensor(String name, long[] dims, long[] strides, DataType type) {
        if (strides != null && strides.length != dims.length) {
            throw new InvalidArgumentException(
                    "Graph.tensor: tensor '" + name + "': " + dims.length + " dims but " + strides.length + " strides");
        }
        long[] tensor = new long[1];
        Check.ok(NativeApi.fe_graph_tensor(pointer(), name, dims.length, dims, strides, type.code, tensor));
        return new Tensor(this, tensor[0]);
    }

    // ---- operations: one method per op is generated (GraphOps); these are shortcuts --------------

    public Tensor matmul(Tensor a, Tensor b) {
        return matmul(a, b, null);
    }

    public Tensor pointwise(PointwiseMode mode, Tensor in0) {
        return pointwise(mode, in0, null, null, null);
    }

    public Tensor pointwise(PointwiseMode mode, Tensor in0, Tensor in1) {
        return pointwise(mode, in0, in1, null, null);
    }

    /** Layer normalization backward, from the forward's x, scale and training statistics. */
    public NormGradients layernormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance,
                                           boolean zeroCenteredGamma) {
        return layernormBackward(dy, x, scale, mean, invVariance,
                new NormBackwardOptions().zeroCenteredGamma(zeroCenteredGamma));
    }

    /** RMS normalization backward, from the forward's inverse RMS; withBias: the forward had a bias. */
    public NormGradients rmsnormBackward(Tensor dy, Tensor x, Tensor scale, Tensor invRms, boolean zeroCenteredGamma,
                                         boolean withBias) {
        return rmsnormBackward(dy, x, scale, invRms, withBias,
                new NormBackwardOptions().zeroCenteredGamma(zeroCenteredGamma));
    }

    public NormGradients instancenormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance) {
        return instancenormBackward(dy, x, scale, mean, invVariance, null);
    }

    /** AdaLN backward; withBias: the forward had a bias. */
    public NormGradients adalayernormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance,
                                              boolean withBias) {
        return adalayernormBackward(dy, x, scale, mean, invVariance, withBias, null);
    }

    /** Batch normalization backward, from the forward's batch statistics. */
    public NormGradients batchnormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance) {
        return batchnormBackward(dy, x, scale, mean, invVariance, null);
    }

    /**
     * Softmax over the last dim; first is y, second the float log-sum-exp statistics when
     * generateStats, else null. On its own cuDNN runs it only fused between two matmuls.
     */
    public TensorPair softmax(Tensor x, boolean generateStats, String name) {
        return softmax(x, new SoftmaxOptions().name(name).generateStats(generateStats));
    }

    /**
     * Random numbers (Philox) of the given dims; seed and offset are int64 tensors of one element.
     * a and b are the distribution's parameters: bernoulli's probability (b unused), uniform's min and
     * max, normal's mean and standard deviation. type NOT_SET: the graph's intermediate type.
     */
    public Tensor rng(Tensor seed, Tensor offset, RngDistribution distribution, double a, double b, long[] dims,
                      DataType type) {
        RngOptions options = new RngOptions().distribution(distribution).dims(dims).dataType(type);
        switch (distribution) {
            case BERNOULLI: options.probability(a); break;
            case UNIFORM: options.min(a).max(b); break;
            default: options.mean(a).std(b); break;
        }
        return rng(seed, offset, options);
    }

    /**
     * FP8 matmul: C = (A * descaleA) x (B * descaleB) * scaleC; first is C, second the float amax
     * of the product before quantization. The scales are one-element float tensors.
     */
    public TensorPair matmulFp8(Tensor a, Tensor b, Tensor descaleA, Tensor descaleB, Tensor scaleC, MatmulOptions options) {
        MatmulFp8Scales scales = new MatmulFp8Scales();
        scales.descaleA = descaleA;
        scales.descaleB = descaleB;
        scales.scaleC = scaleC;
        return matmulFp8(a, b, scales, options);
    }

    /** Block scaling (MXFP8) quantize: first the FP8 values, second the per-block E8M0 scales. */
    public TensorPair blockScaleQuantize(Tensor x, int blockSize, String name) {
        return blockScaleQuantize(x, blockScaleOptions(blockSize, name));
    }

    /** Block scaling dequantize: x times its per-block scales. */
    public Tensor blockScaleDequantize(Tensor x, Tensor scale, int blockSize, String name) {
        return blockScaleDequantize(x, scale, blockScaleOptions(blockSize, name));
    }

    /** blockSize 0 or less: the default (32, MXFP8). */
    private static BlockScaleOptions blockScaleOptions(int blockSize, String name) {
        BlockScaleOptions options = new BlockScaleOptions().name(name);
        if (blockSize > 0) options.blockSize(blockSize);
        return options;
    }

    /**
     * The inputs joined along axis; inPlaceIndex names the input already inside y's buffer, -1 for
     * none.
     */
    public Tensor concatenate(Tensor[] inputs, long axis, long inPlaceIndex, String name) {
        return concatenate(inputs, axis, new ConcatenateOptions().name(name).inPlaceIndex(inPlaceIndex));
    }

    /** {@link #describe()}'s text; "Graph(closed)" once closed. */
    @Override
    public String toString() {
        return isClosed() ? "Graph(closed)" : describe();
    }

    /** Bind tensors to buffers (each checked to be large enough), then enqueue the plan. */
    public void execute(Handle handle, Map<Tensor, DeviceBuffer> buffers) {
        Tensor[] tensors = buffers.keySet().toArray(new Tensor[0]);
        DeviceBuffer[] values = new DeviceBuffer[tensors.length];
        for (int i = 0; i < tensors.length; ++i) values[i] = buffers.get(tensors[i]);
        executeBuffers(handle, tensors, values, 0);
    }
}
