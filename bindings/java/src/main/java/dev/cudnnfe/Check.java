package dev.cudnnfe;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns a C status into an exception carrying the thread's last error message. */
final class Check {
    private Check() {}

    static void ok(int status) {
        if (status != 0) throw failure(status, NativeApi.fe_last_error_message());
    }

    /**
     * The exception of a failed call: the library's message "fe_function: cause" becomes "Method:
     * cause" with the Java method first (the C function stays in {@link CudnnFeException#function()})
     * and the C functions the cause advises to call named as Java methods.
     */
    static RuntimeException failure(int status, String message) {
        int colon = message.indexOf(": ");
        if (!message.startsWith("fe_") || colon < 0 || message.substring(0, colon).contains(" ")) {
            return StatusExceptions.of(status, "", "", message);
        }
        String function = message.substring(0, colon);
        String method = ApiNames.method(function);
        String reason = message.substring(colon + 2);
        // A NULL argument of the call is Java's null argument: NullPointerException naming it.
        Matcher nullArgument = NULL_ARGUMENT.matcher(reason);
        if (status == Status.NULL_POINTER.code && nullArgument.matches()) {
            return nullArgument(method, camel(nullArgument.group(1)));
        }
        return StatusExceptions.of(status, function, method, ApiNames.translate(reason));
    }

    private static final Pattern NULL_ARGUMENT = Pattern.compile("argument '(\\w+)' is NULL");

    private static String camel(String snake) {
        StringBuilder out = new StringBuilder();
        for (String part : snake.split("_")) {
            if (part.isEmpty()) continue;
            out.append(out.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return out.toString();
    }

    /**
     * The IllegalStateException of a use after close: "Graph.validate: the Graph is closed", the
     * method being the library's outermost frame on the stack (the one the caller called).
     */
    static IllegalStateException closed(String what) {
        // The frames of this jar up to the caller's; the generated bases (GraphCalls) name Graph.
        String method = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
                .takeWhile(f -> Objects.equals(f.getDeclaringClass().getProtectionDomain().getCodeSource(),
                        Check.class.getProtectionDomain().getCodeSource()))
                .filter(f -> !f.getMethodName().startsWith("lambda$"))
                .reduce((inner, outer) -> outer)
                .map(f -> f.getDeclaringClass().getSimpleName().replaceFirst("(Calls|Ops|Base)$", "") + "."
                        + f.getMethodName())
                .orElse("cudnnfe"));
        return new IllegalStateException(method + ": the " + what + " is closed");
    }

    /** The NullPointerException of a null argument, naming the method and the parameter. */
    static NullPointerException nullArgument(String method, String parameter) {
        return new NullPointerException(method + ": " + parameter + " is null");
    }

    /** value, or a NullPointerException naming the method and the parameter. */
    static <T> T notNull(T value, String method, String parameter) {
        if (value == null) throw nullArgument(method, parameter);
        return value;
    }
}
