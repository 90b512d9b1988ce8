package dev.cudnnfe;

/** FP8 attention forward's outputs: O, the stats (null unless asked for), and the float amax of S and O. */
public final class SdpaFp8Result {
    public final Tensor o;
    public final Tensor stats;
    public final Tensor amaxS;
    public final Tensor amaxO;

    SdpaFp8Result(Tensor o, Tensor stats, Tensor amaxS, Tensor amaxO) {
        this.o = o;
        this.stats = stats;
        this.amaxS = amaxS;
        this.amaxO = amaxO;
    }
}
