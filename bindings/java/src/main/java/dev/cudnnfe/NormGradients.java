package dev.cudnnfe;

/** A normalization backward's outputs; dbias is null where the forward had no bias. */
public final class NormGradients {
    public final Tensor dx;
    public final Tensor dscale;
    public final Tensor dbias;

    NormGradients(Tensor dx, Tensor dscale, Tensor dbias) {
        this.dx = dx;
        this.dscale = dscale;
        this.dbias = dbias;
    }
}
