package dev.cudnnfe;

/**
 * Options of attention forward (see fe_graph_sdpa in cudnnfe.h for each field's meaning). Unset
 * fields keep the library's defaults: no stats, no scaling, no masks, no dropout.
 */
public final class SdpaOptions {
    private String name;
    private Boolean generateStats;
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
    private Boolean outputDropoutMask;
    private Tensor pageTableK;
    private Tensor pageTableV;
    private Long maxSeqLenKv;
    private SdpaImplementation implementation;

    public SdpaOptions name(String name) { this.name = name; return this; }

    /** Training: also return the softmax stats that the backward pass reads. */
    public SdpaOptions generateStats(boolean generate) { this.generateStats = generate; return this; }

    public SdpaOptions attnScale(double scale) { this.attnScale = scale; return this; }

    public SdpaOptions attnScale(Tensor scale) { this.attnScaleTensor = scale; return this; }

    public SdpaOptions causalMask(CausalMask mask) { this.causalMask = mask; return this; }

    public SdpaOptions computeDataType(DataType type) { this.computeDataType = type; return this; }

    public SdpaOptions bias(Tensor bias) { this.bias = bias; return this; }

    public SdpaOptions slidingWindow(long window) { this.slidingWindow = window; return this; }

    /** Padding mask: per-batch sequence lengths, int32 [b, 1, 1, 1] each. */
    public SdpaOptions paddingMask(Tensor seqLenQ, Tensor seqLenKv) {
        this.seqLenQ = seqLenQ;
        this.seqLenKv = seqLenKv;
        return this;
    }

    public SdpaOptions alibiSlopes(Tensor slopes) { this.alibiSlopes = slopes; return this; }

    /** Dropout with a caller's 0/1 mask, kept values scaled by scale. */
    public SdpaOptions dropoutMask(Tensor mask, double scale) {
        this.dropoutMask = mask;
        this.dropoutScale = scale;
        return this;
    }

    /** Dropout drawn by cuDNN (Philox) with one-element int64 seed and offset tensors. */
    public SdpaOptions dropout(double probability, Tensor seed, Tensor offset) {
        this.dropoutProbability = probability;
        this.dropoutSeed = seed;
        this.dropoutOffset = offset;
        return this;
    }

    /** With dropout(): also output the drawn mask as "<node>::DropoutMask". */
    public SdpaOptions outputDropoutMask(boolean output) { this.outputDropoutMask = output; return this; }

    /** Paged K/V caches: page tables of K and V and the longest sequence. */
    public SdpaOptions pagedCache(Tensor pageTableK, Tensor pageTableV, long maxSeqLenKv) {
        this.pageTableK = pageTableK;
        this.pageTableV = pageTableV;
        this.maxSeqLenKv = maxSeqLenKv;
        return this;
    }

    /** Native, composite, or AUTO (the default): native where it can take the graph. */
    public SdpaOptions implementation(SdpaImplementation implementation) { this.implementation = implementation; return this; }

    fe_sdpa_options toNative() {
        fe_sdpa_options o = new fe_sdpa_options();
        try {
            if (name != null) o.setName(name);
            if (generateStats != null) o.setGenerate_stats(generateStats ? 1 : 0);
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
            if (outputDropoutMask != null) o.setOutput_dropout_mask(outputDropoutMask ? 1 : 0);
            if (pageTableK != null) o.setPage_table_k(pageTableK.pointer());
            if (pageTableV != null) o.setPage_table_v(pageTableV.pointer());
            if (maxSeqLenKv != null) o.setMax_seq_len_kv(maxSeqLenKv);
            if (implementation != null) o.setImplementation(implementation.code);
            return o;
        } catch (RuntimeException e) {
            o.close();
            throw e;
        }
    }
}
