package dev.cudnnfe;

/**
 * What a deviceless build answers on this machine, for a matmul (supported, its engines compile
 * their kernels) and a standalone softmax (no engine runs it): run in the test's JVM, which has the
 * toolkit's stub driver, and as the child process of DevicelessBuildTest without it.
 */
public final class DriverProbe {
    private DriverProbe() {}

    public static void main(String[] args) {
        System.out.println("answers: " + answers(TestSupport.deviceJson()));
    }

    static String answers(String json) {
        try (Graph matmul = new Graph(new GraphOptions().name("matmul").ioDataType(DataType.HALF));
             Graph softmax = new Graph(new GraphOptions().name("softmax").ioDataType(DataType.HALF))) {
            matmul.matmul(matmul.tensor("A", 4, 64, 64), matmul.tensor("B", 4, 64, 64)).setOutput(true);
            softmax.softmax(softmax.tensor("x", 4, 128, 256), false, "").first.setOutput(true);
            String check = statusOf(() -> prepare(matmul, json).checkSupport());
            String build = check.equals("OK") ? statusOf(() -> matmul.buildPlans(BuildPolicy.HEURISTICS_CHOICE)) : "not tried";
            String unsupported = statusOf(() -> prepare(softmax, json).checkSupport());
            return "matmul check " + check + " build " + build + "; softmax check " + unsupported;
        }
    }

    private static Graph prepare(Graph graph, String json) {
        graph.setDeviceProperties(json);
        graph.validate();
        graph.buildOperationGraph(null);
        graph.createExecutionPlans();
        return graph;
    }

    private static String statusOf(Runnable call) {
        try {
            call.run();
            return "OK";
        } catch (CudnnFeException e) {
            return e.status().name();
        }
    }
}
