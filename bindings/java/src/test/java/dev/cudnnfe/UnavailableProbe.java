package dev.cudnnfe;

/**
 * The child process of UnavailableTest: prints the status and message of a call that needs cuDNN,
 * then whether a graph still validates.
 */
public final class UnavailableProbe {
    private UnavailableProbe() {}

    public static void main(String[] args) {
        try {
            CudnnFe.cudnnVersion();
            System.out.println("cuDNN loaded");
        } catch (CudnnFeException e) {
            System.out.println(e.status() + " " + e.getMessage());
        }
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            graph.relu(graph.tensor("x", 4)).setOutput(true);
            graph.validate();
            System.out.println("validated");
        }
    }
}
