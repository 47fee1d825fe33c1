package io.github.pylucenemcp.util;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The items of a page (its documents) worked on by several threads at once: the calling thread and
 * up to {@code threads - 1} tasks of an executor take the next item until none is left. The caller
 * works too, and waits only for the items other threads took, so the items are done even when the
 * executor's threads are all busy (or when the caller is one of them).
 */
public final class Parallel {
  /** Every item on the calling thread. */
  public static final Parallel SERIAL = new Parallel(null, 1);

  private final Executor executor;
  private final int threads;

  /** Up to {@code threads} threads: the caller's and {@code executor}'s. */
  public Parallel(Executor executor, int threads) {
    this.executor = executor;
    this.threads = Math.max(1, threads);
  }

  /** The work on one item. */
  @FunctionalInterface
  public interface Item {
    void run(int index) throws IOException;
  }

  /**
   * Runs {@code item} for each index from 0 to {@code count - 1}; returns when all are done. The
   * first failure is thrown once the items that had started are done; the others are not run.
   */
  public void each(int count, Item item) throws IOException {
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    // counted down for each item, done or skipped after a failure: the caller waits for the items
    // other threads took, never for a task still queued behind other searches' tasks
    CountDownLatch items = new CountDownLatch(count);
    Runnable work =
        () -> {
          for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
            try {
              if (failure.get() == null) {
                item.run(i);
              }
            } catch (IOException | RuntimeException | Error e) {
              failure.compareAndSet(null, e);
            } finally {
              items.countDown();
            }
          }
        };
    int helpers = executor == null ? 0 : Math.min(threads, count) - 1;
    for (int h = 0; h < helpers; h++) {
      executor.execute(work);
    }
    work.run();
    try {
      items.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the page's other threads", e);
    }
    Throwable first = failure.get();
    if (first instanceof IOException io) {
      throw io;
    }
    if (first instanceof UncheckedIOException io) {
      throw io.getCause();
    }
    if (first instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (first instanceof Error error) {
      throw error;
    }
  }
}
