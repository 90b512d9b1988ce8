package dev.cudnnfe;

/** Options of layernorm, rmsnorm, instancenorm and adalayernorm. Unset: inference, epsilon 1e-5. */
public final class NormOptions {
    private String name;
    private NormPhase phase;
    private Double epsilon;
    private Tensor epsilonTensor;
    private Boolean zeroCenteredGamma;

    public NormOptions name(String name) { this.name = name; return this; }

    /** TRAINING also returns the float statistics the backward pass reads. */
    public NormOptions phase(NormPhase phase) { this.phase = phase; return this; }

    public NormOptions epsilon(double epsilon) { this.epsilon = epsilon; return this; }

    /** Epsilon as a one-element float scalar made with {@link Graph#scalar}; it replaces the value. */
    public NormOptions epsilon(Tensor epsilon) { this.epsilonTensor = epsilon; return this; }

    /** Multiply by (1 + scale) instead of scale (layernorm and rmsnorm). */
    public NormOptions zeroCenteredGamma(boolean zeroCentered) { this.zeroCenteredGamma = zeroCentered; return this; }

    fe_norm_options toNative() {
        fe_norm_options o = new fe_norm_options();
        try {
            if (name != null) o.setName(name);
            if (phase != null) o.setPhase(phase.code);
            if (epsilon != null) o.setEpsilon(epsilon);
            if (epsilonTensor != null) o.setEpsilon_tensor(epsilonTensor.pointer());
            if (zeroCenteredGamma != null) o.setZero_centered_gamma(zeroCenteredGamma ? 1 : 0);
            return o;
        } catch (RuntimeException e) {
            o.close();
            throw e;
        }
    }
}
