package dev.cudnnfe;

/** FP8 attention backward's outputs: dQ, dK, dV and the float amax of each and of dP. */
public final class SdpaFp8Gradients {
    public final Tensor dq, dk, dv;
    public final Tensor amaxDq, amaxDk, amaxDv, amaxDp;

    SdpaFp8Gradients(Tensor dq, Tensor dk, Tensor dv, Tensor amaxDq, Tensor amaxDk, Tensor amaxDv, Tensor amaxDp) {
        this.dq = dq;
        this.dk = dk;
        this.dv = dv;
        this.amaxDq = amaxDq;
        this.amaxDk = amaxDk;
        this.amaxDv = amaxDv;
        this.amaxDp = amaxDp;
    }
}
