package dev.cudnnfe;

/** Attention backward's outputs. */
public final class SdpaGradients {
    public final Tensor dq;
    public final Tensor dk;
    public final Tensor dv;

    SdpaGradients(Tensor dq, Tensor dk, Tensor dv) {
        this.dq = dq;
        this.dk = dk;
        this.dv = dv;
    }
}
