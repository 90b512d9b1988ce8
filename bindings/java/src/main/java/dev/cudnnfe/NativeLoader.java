package dev.cudnnfe;

/**
 * Loads the JNI glue library, libcudnnfe_java.so, once, by this rule:
 *
 * <ol>
 *   <li>If the system property {@value #LIBRARY_PROPERTY} is set, it is the glue library's path
 *       and is loaded with {@link System#load}.
 *   <li>Otherwise {@code System.loadLibrary("cudnnfe_java")} looks for it on {@code
 *       java.library.path}.
 *   <li>If that fails and the jar bundles the native libraries (the Maven artifact does, under
 *       {@code native/<os>-<arch>/}), they are unpacked to a temporary directory and loaded from
 *       there: libcudnnfe.so.1 first, then the glue.
 * </ol>
 *
 * The glue names libcudnnfe.so.1 as a needed library, so the system's loader then finds the C
 * library by its versioned name through the glue's run path (in a build tree the glue's own
 * directory; installed, the directory above it, where Debian's layout puts the library beside
 * jni/), on LD_LIBRARY_PATH, or in the system's library directories.
 */
final class NativeLoader {
    static final String LIBRARY_PROPERTY = "dev.cudnnfe.library";
    private static boolean loaded;

    private NativeLoader() {}

    static synchronized void load() {
        if (loaded) return;
        String path = System.getProperty(LIBRARY_PROPERTY);
        try {
            if (path != null && !path.isEmpty()) {
                System.load(path);
            } else {
                try {
                    System.loadLibrary("cudnnfe_java");
                } catch (UnsatisfiedLinkError e) {
                    if (!loadBundled()) throw e;
                }
            }
        } catch (UnsatisfiedLinkError e) {
            UnsatisfiedLinkError explained = new UnsatisfiedLinkError(e.getMessage()
                    + " (cudnnfe loads libcudnnfe_java.so from -D" + LIBRARY_PROPERTY
                    + "=<path>, else from java.library.path; it needs libcudnnfe.so.1 beside it or on LD_LIBRARY_PATH)");
            explained.initCause(e);
            throw explained;
        }
        loaded = true;
    }

    /** The platform folder of the bundled libraries, e.g. native/linux-x86_64. */
    static String bundledFolder() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(java.util.Locale.ROOT);
        if (os.startsWith("linux")) os = "linux";
        if (arch.equals("amd64") || arch.equals("x86-64")) arch = "x86_64";
        if (arch.equals("arm64")) arch = "aarch64";
        return "native/" + os + "-" + arch;
    }

    /**
     * Unpacks libcudnnfe.so.1 and libcudnnfe_java.so from the jar's platform folder into a fresh
     * temporary directory (removed at exit) and loads them; false when the jar bundles none.
     */
    private static boolean loadBundled() {
        String folder = bundledFolder();
        String[] names = {"libcudnnfe.so.1", "libcudnnfe_java.so"};
        if (NativeLoader.class.getClassLoader().getResource(folder + "/" + names[1]) == null) return false;
        try {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("cudnnfe-native");
            dir.toFile().deleteOnExit();
            for (String name : names) {
                java.nio.file.Path target = dir.resolve(name);
                try (java.io.InputStream in = NativeLoader.class.getClassLoader().getResourceAsStream(folder + "/" + name)) {
                    if (in == null) throw new UnsatisfiedLinkError("the jar lacks " + folder + "/" + name);
                    java.nio.file.Files.copy(in, target);
                }
                target.toFile().deleteOnExit();
            }
            for (String name : names) System.load(dir.resolve(name).toString());
            return true;
        } catch (java.io.IOException e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot unpack the bundled native libraries of "
                    + folder + ": " + e);
            error.initCause(e);
            throw error;
        }
    }
}
