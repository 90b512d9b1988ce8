package dev.cudnnfe;

/**
 * A normalization's outputs: y, and in training the float statistics (null in inference). For
 * rmsnorm, mean is null and invVariance is the inverse RMS.
 */
public final class NormResult {
    public final Tensor y;
    public final Tensor mean;
    public final Tensor invVariance;

    NormResult(Tensor y, Tensor mean, Tensor invVariance) {
        this.y = y;
        this.mean = mean;
        this.invVariance = invVariance;
    }
}
