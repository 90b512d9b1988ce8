package dev.cudnnfe;

/** Batchnorm's outputs; the next running statistics are null without running statistics. */
public final class BatchnormResult {
    public final Tensor y;
    public final Tensor mean;
    public final Tensor invVariance;
    public final Tensor nextRunningMean;
    public final Tensor nextRunningVar;

    BatchnormResult(Tensor y, Tensor mean, Tensor invVariance, Tensor nextRunningMean, Tensor nextRunningVar) {
        this.y = y;
        this.mean = mean;
        this.invVariance = invVariance;
        this.nextRunningMean = nextRunningMean;
        this.nextRunningVar = nextRunningVar;
    }
}
