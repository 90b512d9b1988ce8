package dev.cudnnfe;

/**
 * Loads the JNI glue library, libcudnnfe_java.so, once, by this rule:
 *
 * <ol>
 *   <li>If the system property {@value #LIBRARY_PROPERTY} is set, it is the glue library's path
 *       and is loaded with {@link System#load}.
 *   <li>Otherwise {@code System.loadLibrary("cudnnfe_java")} looks for it on {@code
 *       java.library.path}.
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
                System.loadLibrary("cudnnfe_java");
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
}
