package io.github.pylucenemcp.tika;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.tika.metadata.Metadata;
import org.junit.Test;

public class TikaPipeTest {
  private static void request(DataOutputStream out, int id, String name, byte[] body)
      throws IOException {
    byte[] encoded = name.getBytes(StandardCharsets.UTF_8);
    out.writeInt(TikaPipe.MAGIC);
    out.writeInt(id);
    out.writeInt(encoded.length);
    out.write(encoded);
    out.writeLong(body.length);
    out.write(body);
  }

  /** The answers of a run over {@code requests}: id → payload, READY under 0. */
  private static Map<Integer, String> answers(int writeLimit, byte[] requests) throws IOException {
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    new TikaPipe(writeLimit, null, written).run(new ByteArrayInputStream(requests));
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(written.toByteArray()));
    Map<Integer, String> found = new HashMap<>();
    while (in.available() > 0) {
      assertEquals(TikaPipe.MAGIC, in.readInt());
      int id = in.readInt();
      int kind = in.readInt();
      byte[] payload = new byte[in.readInt()];
      in.readFully(payload);
      assertEquals(id == 0 ? TikaPipe.READY : TikaPipe.PARSED, kind);
      found.put(id, new String(payload, StandardCharsets.UTF_8));
    }
    return found;
  }

  @Test
  public void eachRequestIsAnsweredUnderItsIdWithTikasMetadataList() throws IOException {
    ByteArrayOutputStream requests = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(requests);
    request(out, 7, "note.txt", "a note about \"herons\"".getBytes(StandardCharsets.UTF_8));
    request(out, 8, "broken.pdf", "%PDF-1.4 no trailer".getBytes(StandardCharsets.US_ASCII));
    byte[] big = new byte[TikaPipe.IN_MEMORY + 10]; // spooled to a file, not kept in memory
    java.util.Arrays.fill(big, (byte) 'x');
    request(out, 9, "big.txt", big);
    Map<Integer, String> answers = answers(-1, requests.toByteArray());
    assertTrue(answers.get(0), answers.get(0).startsWith("Apache Tika"));
    assertTrue(answers.get(7), answers.get(7).contains("a note about \\\"herons\\\""));
    assertTrue(answers.get(7), answers.get(7).contains("\"Content-Type\":\"text/plain"));
    assertTrue(answers.get(8), answers.get(8).contains("X-TIKA:EXCEPTION:container_exception"));
    assertTrue(answers.get(9).contains("xxxxxxxxxx"));
    assertEquals(4, answers.size());
  }

  @Test
  public void textBeyondTheWriteLimitIsCutAndMarked() throws IOException {
    ByteArrayOutputStream requests = new ByteArrayOutputStream();
    StringBuilder text = new StringBuilder("first ");
    for (int i = 0; i < 5000; i++) {
      text.append("word").append(i).append(' ');
    }
    request(
        new DataOutputStream(requests),
        1,
        "long.txt",
        text.append("last").toString().getBytes(StandardCharsets.UTF_8));
    String answer = answers(1000, requests.toByteArray()).get(1);
    assertTrue(answer.contains("first") && !answer.contains("last"));
    assertTrue(answer.contains("\"X-TIKA:EXCEPTION:write_limit_reached\":\"true\""));
  }

  @Test
  public void jsonStringsAreValidWhateverTheText() {
    Metadata metadata = new Metadata();
    metadata.add("title", "q\"b\\n\n\t\u0001 \ud83d\ude00 lone \ud800 end \udc00");
    metadata.add("b", "one");
    metadata.add("b", "two");
    assertEquals(
        "[{\"b\":[\"one\",\"two\"],"
            + "\"title\":\"q\\\"b\\\\n\\n\\t\\u0001 \ud83d\ude00 lone \ufffd end \ufffd\"}]",
        TikaPipe.metadataList(List.of(metadata)));
  }
}
