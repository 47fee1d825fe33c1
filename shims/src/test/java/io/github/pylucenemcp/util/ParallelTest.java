package io.github.pylucenemcp.util;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.Test;

public class ParallelTest {
  @Test
  public void everyItemRunsOnceOnSeveralThreads() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      AtomicIntegerArray runs = new AtomicIntegerArray(200);
      Set<Thread> threads = ConcurrentHashMap.newKeySet();
      new Parallel(pool, 4)
          .each(
              200,
              i -> {
                runs.incrementAndGet(i);
                threads.add(Thread.currentThread());
              });
      for (int i = 0; i < 200; i++) {
        assertEquals(1, runs.get(i));
      }
      assertTrue(threads.size() <= 4);
    } finally {
      pool.shutdown();
    }
  }

  @Test
  public void theCallerDoesEveryItemWhenTheExecutorNeverRunsItsTasks() throws Exception {
    List<Runnable> queued = new ArrayList<>(); // an executor whose threads are all busy
    List<Integer> done = new ArrayList<>();
    new Parallel(queued::add, 2).each(5, done::add);
    assertEquals(List.of(0, 1, 2, 3, 4), done);
    assertEquals(1, queued.size());
    queued.get(0).run(); // when it runs at last, nothing is left for it
    assertEquals(5, done.size());
  }

  @Test
  public void theFirstFailureIsThrownAsItWas() throws Exception {
    IOException thrown =
        assertThrows(
            IOException.class,
            () ->
                Parallel.SERIAL.each(
                    3,
                    i -> {
                      if (i == 1) {
                        throw new IOException("item " + i);
                      }
                    }));
    assertEquals("item 1", thrown.getMessage());
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      assertThrows(
          IllegalStateException.class,
          () ->
              new Parallel(pool, 2)
                  .each(
                      4,
                      i -> {
                        throw new IllegalStateException("no");
                      }));
    } finally {
      pool.shutdown();
    }
  }
}
