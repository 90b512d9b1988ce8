// An outside Java program run against the installed jar and JNI glue only (the glue finds
// libcudnnfe.so.1 through its run path): the library's version is the package version (args[0]).
import dev.cudnnfe.CudnnFe;

public class VersionClient {
    public static void main(String[] args) {
        String version = CudnnFe.versionString();
        long[] strides = CudnnFe.stridesChannelsLast(8, 64, 56, 56);
        if (!version.equals(args[0]) || strides[1] != 1) {
            System.err.println("cudnnfe " + version + ", package " + args[0] + ", channel stride " + strides[1]);
            System.exit(1);
        }
        System.out.println("java: dev.cudnnfe " + version + " from the package");
    }
}
