package dev.weft.runtime;

/**
 * A launch did not run because an earlier launch on its stream, or an event it waited for, had failed.
 * The cause is that earlier failure. See {@link Stream} for the error semantics.
 */
public final class LaunchSkippedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception; {@code cause} is the failure that poisoned the stream. */
    public LaunchSkippedException(String message, Throwable cause) {
        super(message, cause);
    }
}
