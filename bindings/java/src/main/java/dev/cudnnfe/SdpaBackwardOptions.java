package dev.cudnnfe;

/** Options of attention backward: the same score modifiers as the forward pass. */
public final class SdpaBackwardOptions {
    private String name;
    private Double attnScale;
    private Tensor attnScaleTensor;
    private CausalMask causalMask;
    private DataType computeDataType;
    private Tensor bias;
    private Long slidingWindow;
    private Tensor seqLenQ;
    private Tensor seqLenKv;
    private Tensor alibiSlopes;
    private Tensor dropoutMask;
    private Double dropoutScale;
    private Double dropoutProbability;
    private Tensor dropoutSeed;
    private Tensor dropoutOffset;
    private SdpaImplementation implementation;
    private Boolean outputDbias;
    private Boolean deterministic;

    public SdpaBackwardOptions name(String name) { this.name = name; return this; }

    public SdpaBackwardOptions attnScale(double scale) { this.attnScale = scale; return this; }

    public SdpaBackwardOptions attnScale(Tensor scale) { this.attnScaleTensor = scale; return this; }

    public SdpaBackwardOptions causalMask(CausalMask mask) { this.causalMask = mask; return this; }

    public SdpaBackwardOptions computeDataType(DataType type) { this.computeDataType = type; return this; }

    public SdpaBackwardOptions bias(Tensor bias) { this.bias = bias; return this; }

    public SdpaBackwardOptions slidingWindow(long window) { this.slidingWindow = window; return this; }

    public SdpaBackwardOptions paddingMask(Tensor seqLenQ, Tensor seqLenKv) {
        this.seqLenQ = seqLenQ;
        this.seqLenKv = seqLenKv;
        return this;
    }

    public SdpaBackwardOptions alibiSlopes(Tensor slopes) { this.alibiSlopes = slopes; return this; }

    public SdpaBackwardOptions dropoutMask(Tensor mask, double scale) {
        this.dropoutMask = mask;
        this.dropoutScale = scale;
        return this;
    }

    public SdpaBackwardOptions dropout(double probability, Tensor seed, Tensor offset) {
        this.dropoutProbability = probability;
        this.dropoutSeed = seed;
        this.dropoutOffset = offset;
        return this;
    }

    public SdpaBackwardOptions implementation(SdpaImplementation implementation) {
        this.implementation = implementation;
        return this;
    }

    /** With a bias [1, h_q, s_q, s_kv]: also output its gradient, "<node>::dBias" (find it by name). */
    public SdpaBackwardOptions outputDbias(boolean output) { this.outputDbias = output; return this; }

    /** Accumulate dQ, dK, dV in a fixed order: repeated runs give identical bits. */
    public SdpaBackwardOptions deterministic(boolean deterministic) { this.deterministic = deterministic; return this; }

    fe_sdpa_backward_options toNative() {
        fe_sdpa_backward_options o = new fe_sdpa_backward_options();
        try {
            if (name != null) o.setName(name);
            if (attnScale != null) o.setAttn_scale(attnScale);
            if (attnScaleTensor != null) o.setAttn_scale_tensor(attnScaleTensor.pointer());
            if (causalMask != null) o.setCausal_mask(causalMask.code);
            if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
            if (bias != null) o.setBias(bias.pointer());
            if (slidingWindow != null) o.setSliding_window(slidingWindow);
            if (seqLenQ != null) o.setSeq_len_q(seqLenQ.pointer());
            if (seqLenKv != null) o.setSeq_len_kv(seqLenKv.pointer());
            if (alibiSlopes != null) o.setAlibi_slopes(alibiSlopes.pointer());
            if (dropoutMask != null) o.setDropout_mask(dropoutMask.pointer());
            if (dropoutScale != null) o.setDropout_scale(dropoutScale);
            if (dropoutProbability != null) o.setDropout_probability(dropoutProbability);
            if (dropoutSeed != null) o.setDropout_seed(dropoutSeed.pointer());
            if (dropoutOffset != null) o.setDropout_offset(dropoutOffset.pointer());
            if (implementation != null) o.setImplementation(implementation.code);
            if (outputDbias != null) o.setOutput_dbias(outputDbias ? 1 : 0);
            if (deterministic != null) o.setDeterministic(deterministic ? 1 : 0);
            return o;
        } catch (RuntimeException e) {
            o.close();
            throw e;
        }
    }
}
