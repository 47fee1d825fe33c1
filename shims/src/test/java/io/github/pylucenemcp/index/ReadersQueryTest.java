package io.github.pylucenemcp.index;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.apache.lucene.util.BytesRef;
import org.junit.Test;

public class ReadersQueryTest {
  static BytesRef recorded(String... readers) {
    return new BytesRef(String.join(SchemaWriter.SEPARATOR, readers));
  }

  static boolean admits(String[] principals, String... readers) {
    return new ReadersQuery("file_readers", principals).admits(recorded(readers));
  }

  @Test
  public void aNamedPrincipalReads() {
    String[] carol = {"user:carol", "group:eng", "*"};
    assertTrue(admits(carol, "*", "user:bob"));
    assertTrue(admits(carol, "group:eng"));
    assertFalse(admits(carol, "user:bob", "group:sales"));
    assertFalse(admits(carol));
  }

  @Test
  public void aRefusalWinsOverEveryName() {
    String[] carol = {"user:carol", "group:eng", "*"};
    // 0604 bob:eng: anyone reads, but the group the bits shut out
    assertFalse(admits(carol, "*", "user:bob", "-group:eng except user:bob"));
    assertTrue(
        admits(new String[] {"user:bob", "group:eng", "*"}, "*", "-group:eng except user:bob"));
    assertTrue(admits(new String[] {"user:dan", "*"}, "*", "-group:eng except user:bob"));
    assertFalse(admits(new String[] {"user:bob", "*"}, "*", "user:bob", "-user:bob"));
    // the refusal holds wherever it stands among the readers
    assertFalse(admits(carol, "-group:eng except user:bob", "user:carol"));
  }
}
