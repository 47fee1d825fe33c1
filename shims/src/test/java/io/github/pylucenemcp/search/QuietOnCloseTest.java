package io.github.pylucenemcp.search;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.lucene.store.AlreadyClosedException;
import org.junit.Test;

public class QuietOnCloseTest {
  private static String printedBy(RuntimeException error) throws InterruptedException {
    PrintStream before = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      Thread thread =
          QuietOnClose.on(
              new Thread(
                  () -> {
                    throw error;
                  },
                  "refresh"));
      thread.start();
      thread.join();
    } finally {
      System.setErr(before);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  public void aClosedWriterEndsTheThreadQuietlyAndOtherErrorsArePrinted() throws Exception {
    assertEquals("", printedBy(new AlreadyClosedException("this IndexWriter is closed")));
    String other = printedBy(new IllegalStateException("odd"));
    assertTrue(
        other,
        other.startsWith("Exception in thread \"refresh\" java.lang.IllegalStateException: odd"));
  }
}
