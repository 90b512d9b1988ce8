package dev.cudnnfe;

/** Options of batchnorm (training). Unset: epsilon 1e-5, no running statistics, momentum 0.1. */
public final class BatchnormOptions {
    private String name;
    private Double epsilon;
    private Tensor epsilonTensor;
    private Tensor runningMean;
    private Tensor runningVar;
    private Double momentum;
    private Tensor momentumTensor;

    public BatchnormOptions name(String name) { this.name = name; return this; }

    public BatchnormOptions epsilon(double epsilon) { this.epsilon = epsilon; return this; }

    /** Epsilon as a one-element float scalar; it replaces the value. */
    public BatchnormOptions epsilon(Tensor epsilon) { this.epsilonTensor = epsilon; return this; }

    /**
     * Running statistics (float [1, C, 1, ...] inputs): the call then also returns the updated ones,
     * (1 - momentum) * running + momentum * batch statistic.
     */
    public BatchnormOptions runningStatistics(Tensor mean, Tensor variance) {
        this.runningMean = mean;
        this.runningVar = variance;
        return this;
    }

    public BatchnormOptions momentum(double momentum) { this.momentum = momentum; return this; }

    /** Momentum as a float scalar; it replaces the value. */
    public BatchnormOptions momentum(Tensor momentum) { this.momentumTensor = momentum; return this; }

    fe_batchnorm_options toNative() {
        fe_batchnorm_options o = new fe_batchnorm_options();
        try {
            if (name != null) o.setName(name);
            if (epsilon != null) o.setEpsilon(epsilon);
            if (epsilonTensor != null) o.setEpsilon_tensor(epsilonTensor.pointer());
            if (runningMean != null) o.setRunning_mean(runningMean.pointer());
            if (runningVar != null) o.setRunning_var(runningVar.pointer());
            if (momentum != null) o.setMomentum(momentum);
            if (momentumTensor != null) o.setMomentum_tensor(momentumTensor.pointer());
            return o;
        } catch (RuntimeException e) {
            o.close();
            throw e;
        }
    }
}
