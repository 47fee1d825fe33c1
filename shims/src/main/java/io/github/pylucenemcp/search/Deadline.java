package io.github.pylucenemcp.search;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.lucene.index.QueryTimeout;

/**
 * The calling thread's search deadlines, as {@link QueryTimeout}s. Each search sets those of its
 * own thread with {@link #start} and lifts them with {@link #clear}; the instances are shared, so a
 * limited reader (see {@link SearchContext#limitedReader}) is built once per reader.
 *
 * <p>Two deadlines: collecting hits stops at the {@link #COLLECT} deadline ({@code millis} after
 * the start), keeping the hits found so far; reading the index (expanding wildcard, fuzzy and regex
 * terms, doc values for facets and sorting) stops at the {@link #READ} deadline, twice as far, so
 * that the facets of a cut-short search can still be counted.
 *
 * <p>A search spread over threads ({@link #EXECUTOR}) carries its deadlines into each task.
 */
public final class Deadline implements QueryTimeout {
  /** Stops the collection of hits (bulk scoring). */
  public static final Deadline COLLECT = new Deadline(0);

  /** Stops reading the index: term enumeration, points, doc values. */
  public static final Deadline READ = new Deadline(1);

  private static final long NONE = Long.MAX_VALUE;
  private static final ThreadLocal<long[]> DEADLINES =
      ThreadLocal.withInitial(() -> new long[] {NONE, NONE});

  /** At most this many threads search the slices of one index at once. */
  public static final int SEARCH_THREADS =
      Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors()));

  private static final LongAdder TASKS = new LongAdder();

  private static final ExecutorService POOL =
      Executors.newFixedThreadPool(
          SEARCH_THREADS,
          r -> {
            Thread t = new Thread(r, "pylucene-mcp-search");
            t.setDaemon(true);
            return t;
          });

  /**
   * Runs an {@code IndexSearcher}'s slices on the search threads, each task under the deadlines of
   * the thread that submitted it (the search's caller).
   */
  public static final Executor EXECUTOR =
      task -> {
        long[] caller = DEADLINES.get().clone();
        POOL.execute(
            () -> {
              TASKS.increment();
              long[] mine = DEADLINES.get();
              mine[0] = caller[0];
              mine[1] = caller[1];
              try {
                task.run();
              } finally {
                clear();
              }
            });
      };

  /** {@link #EXECUTOR} for the APIs that want an {@code ExecutorService}; it never shuts down. */
  public static final ExecutorService SERVICE =
      new AbstractExecutorService() {
        @Override
        public void execute(Runnable task) {
          EXECUTOR.execute(task);
        }

        @Override
        public void shutdown() {}

        @Override
        public List<Runnable> shutdownNow() {
          return List.of();
        }

        @Override
        public boolean isShutdown() {
          return false;
        }

        @Override
        public boolean isTerminated() {
          return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
          return false;
        }
      };

  private final int slot;

  /** How many tasks the search threads have run so far. */
  public static long tasksRun() {
    return TASKS.sum();
  }

  private Deadline(int slot) {
    this.slot = slot;
  }

  /** From now on, this thread's search work stops after {@code millis} (no limit when ≤ 0). */
  public static void start(long millis) {
    long[] deadlines = DEADLINES.get();
    long now = System.nanoTime();
    deadlines[0] = millis > 0 ? now + millis * 1_000_000L : NONE;
    deadlines[1] = millis > 0 ? now + 2 * millis * 1_000_000L : NONE;
  }

  /** Lifts this thread's deadlines. */
  public static void clear() {
    long[] deadlines = DEADLINES.get();
    deadlines[0] = NONE;
    deadlines[1] = NONE;
  }

  @Override
  public boolean shouldExit() {
    long deadline = DEADLINES.get()[slot];
    return deadline != NONE && System.nanoTime() - deadline > 0;
  }
}
