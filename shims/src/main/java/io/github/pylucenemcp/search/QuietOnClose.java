package io.github.pylucenemcp.search;

import io.github.pylucenemcp.checks.SuppressForbidden;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * An uncaught-exception handler for the index's refresh thread: a writer that closed itself (a
 * tragic event such as a full disk) ends the thread without a stack trace on stderr, since the
 * index rolls back and starts a new writer and thread itself; anything else is printed as Java
 * would.
 */
public final class QuietOnClose implements Thread.UncaughtExceptionHandler {
  /** Sets this handler on {@code thread} and returns the thread. */
  public static Thread on(Thread thread) {
    thread.setUncaughtExceptionHandler(new QuietOnClose());
    return thread;
  }

  @Override
  @SuppressForbidden(reason = "stderr, as Java's own handler prints it; never stdout")
  public void uncaughtException(Thread thread, Throwable error) {
    if (error instanceof AlreadyClosedException) {
      return;
    }
    System.err.print("Exception in thread \"" + thread.getName() + "\" ");
    error.printStackTrace(System.err);
  }
}
