package dev.cudnnfe;

/** Pointwise operations (unary, binary, comparisons, logic, index generation, select). */
public enum PointwiseMode {
    ADD(0),
    MUL(1),
    MIN(2),
    MAX(3),
    SQRT(4),
    ADD_SQUARE(5),
    DIV(6),
    MOD(7),
    POW(8),
    SUB(9),
    ABS(10),
    CEIL(11),
    COS(12),
    EXP(13),
    FLOOR(14),
    LOG(15),
    NEG(16),
    RSQRT(17),
    SIN(18),
    TAN(19),
    ERF(20),
    IDENTITY(21),
    RECIPROCAL(22),
    ATAN2(23),
    RELU_FWD(100),
    TANH_FWD(101),
    SIGMOID_FWD(102),
    ELU_FWD(103),
    GELU_FWD(104),
    SOFTPLUS_FWD(105),
    SWISH_FWD(106),
    GELU_APPROX_TANH_FWD(107),
    RELU_BWD(200),
    TANH_BWD(201),
    SIGMOID_BWD(202),
    ELU_BWD(203),
    GELU_BWD(204),
    SOFTPLUS_BWD(205),
    SWISH_BWD(206),
    GELU_APPROX_TANH_BWD(207),
    CMP_EQ(300),
    CMP_NEQ(301),
    CMP_GT(302),
    CMP_GE(303),
    CMP_LT(304),
    CMP_LE(305),
    LOGICAL_AND(400),
    LOGICAL_OR(401),
    LOGICAL_NOT(402),
    GEN_INDEX(501),
    BINARY_SELECT(601);

    public final int code;

    PointwiseMode(int code) {
        this.code = code;
    }
}
