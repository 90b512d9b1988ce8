package dev.cudnnfe;

/** Distributions of random numbers drawn by cuDNN (Philox). */
public enum RngDistribution {
    /** 1 with the given probability, else 0. */
    BERNOULLI(0),
    /** Uniform in [min, max). */
    UNIFORM(1),
    /** Normal with the given mean and standard deviation. */
    NORMAL(2);

    public final int code;

    RngDistribution(int code) {
        this.code = code;
    }

    static RngDistribution of(int code) {
        for (RngDistribution value : values()) {
            if (value.code == code) return value;
        }
        throw new CudnnFeException(Status.INTERNAL, "unknown RngDistribution " + code);
    }
}
