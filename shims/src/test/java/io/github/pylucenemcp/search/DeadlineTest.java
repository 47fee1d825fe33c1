package io.github.pylucenemcp.search;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

public class DeadlineTest {
  private static boolean[] onSearchThread() throws Exception {
    CompletableFuture<boolean[]> seen = new CompletableFuture<>();
    Deadline.EXECUTOR.execute(
        () ->
            seen.complete(
                new boolean[] {Deadline.COLLECT.shouldExit(), Deadline.READ.shouldExit()}));
    return seen.get(10, TimeUnit.SECONDS);
  }

  @Test
  public void aSearchThreadWorksUnderTheCallersDeadlines() throws Exception {
    Deadline.start(1); // collect: 1 ms, read: 2 ms
    try {
      Thread.sleep(20);
      boolean[] passed = onSearchThread();
      assertTrue("collect deadline passed on the search thread", passed[0]);
      assertTrue("read deadline passed on the search thread", passed[1]);
    } finally {
      Deadline.clear();
    }
    boolean[] lifted = onSearchThread();
    assertFalse("no deadline after the caller cleared its own", lifted[0] || lifted[1]);
  }

  @Test
  public void aFarDeadlineHasNotPassedOnTheSearchThread() throws Exception {
    Deadline.start(60_000);
    try {
      boolean[] passed = onSearchThread();
      assertFalse(passed[0] || passed[1]);
    } finally {
      Deadline.clear();
    }
  }
}
