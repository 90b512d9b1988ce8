package app;

import dev.cudnnfe.CudnnFe;

/** Prints the version of the cudnnfe library the binding loaded. */
public final class App {
    public static void main(String[] args) {
        System.out.println("cudnnfe " + CudnnFe.versionString());
    }
}
