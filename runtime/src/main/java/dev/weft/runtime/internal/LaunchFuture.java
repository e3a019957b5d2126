package dev.weft.runtime.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The future of one launch, handed to the caller as it is: only the runtime completes it.
 *
 * <p>Implementation notes. Streams chain launches on this same future, so once a stream has seen a launch
 * finish ({@code Stream.synchronize()} returned, the next launch started), the caller's future is done
 * too. A defensive {@code copy()} for the caller, as before, completes as a dependent after the stream's
 * own future, and {@code synchronize()} could return while the caller's future was not yet done. A copy
 * registered so as to complete first would instead run the caller's callbacks before the stream saw the
 * launch finish, and a callback that synchronizes the stream would then wait for itself. So the caller
 * gets the real future, and the methods that would let it complete (and so release the stream early)
 * are refused; the timeouts apply to a copy.
 */
public final class LaunchFuture extends CompletableFuture<Void> {

    void succeed() {
        super.complete(null);
    }

    void failWith(Throwable failure) {
        super.completeExceptionally(failure);
    }

    private static UnsupportedOperationException refused(String method) {
        return new UnsupportedOperationException(method + ": a launch's future completes when the launch has run; "
                + "only the runtime completes it");
    }

    @Override
    public boolean complete(Void value) {
        throw refused("complete");
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        throw refused("completeExceptionally");
    }

    @Override
    public void obtrudeValue(Void value) {
        throw refused("obtrudeValue");
    }

    @Override
    public void obtrudeException(Throwable ex) {
        throw refused("obtrudeException");
    }

    @Override
    public CompletableFuture<Void> completeAsync(Supplier<? extends Void> supplier, Executor executor) {
        throw refused("completeAsync");
    }

    @Override
    public CompletableFuture<Void> completeAsync(Supplier<? extends Void> supplier) {
        throw refused("completeAsync");
    }

    /** A launch cannot be cancelled once queued: returns false and changes nothing. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return false;
    }

    /** A copy of this future that fails with a {@link java.util.concurrent.TimeoutException} after the timeout. */
    @Override
    public CompletableFuture<Void> orTimeout(long timeout, TimeUnit unit) {
        return copy().orTimeout(timeout, unit);
    }

    /** A copy of this future that completes normally after the timeout. */
    @Override
    public CompletableFuture<Void> completeOnTimeout(Void value, long timeout, TimeUnit unit) {
        return copy().completeOnTimeout(value, timeout, unit);
    }
}
