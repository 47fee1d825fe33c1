package io.github.pylucenemcp.solr;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.solr.cloud.MiniSolrCloudCluster;
import org.apache.solr.embedded.JettyConfig;
import org.apache.solr.embedded.JettySolrRunner;

/**
 * A SolrCloud of {@code N} nodes with an embedded ZooKeeper, in this JVM, for tests and for trying
 * the SolrCloud backend ({@code make solr-cluster}): Solr's own {@code MiniSolrCloudCluster}, on
 * free ports.
 *
 * <p>Usage: {@code LocalCluster NODES DIR}. Once every node is up it writes one line to stdout,
 * {@code {"urls":[...],"zkHost":"..."}}, then reads commands from stdin, one per line, and answers
 * each with a line: {@code stop I} stops node I (from 0, in the order of the first line), {@code
 * start I} starts it again on its port, {@code security FILE} puts FILE in ZooKeeper as the
 * cluster's {@code security.json}, {@code urls} repeats the first line. At the end of stdin, or
 * {@code quit}, it shuts down: a cluster never outlives the process that started it.
 */
public final class LocalCluster {
  private LocalCluster() {}

  @io.github.pylucenemcp.checks.SuppressForbidden(reason = "stdout is this tool's protocol")
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: LocalCluster NODES DIR");
    }
    int count = Integer.parseInt(args[0]);
    Path dir = Path.of(args[1]);
    Files.createDirectories(dir);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    MiniSolrCloudCluster cluster =
        new MiniSolrCloudCluster(count, dir, JettyConfig.builder().setPort(0).build());
    try {
      cluster.waitForAllNodes(60);
      // the nodes by their first order: the cluster's own list drops a node that stops
      List<JettySolrRunner> nodes = new ArrayList<>(cluster.getJettySolrRunners());
      out.println(describe(cluster, nodes));
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] words = line.trim().split("\\s+");
        try {
          switch (words[0]) {
            case "stop" -> {
              JettySolrRunner node = nodes.get(Integer.parseInt(words[1]));
              cluster.stopJettySolrRunner(node);
              cluster.waitForJettyToStop(node);
              out.println("{\"stopped\":" + words[1] + "}");
            }
            case "start" -> {
              JettySolrRunner node = nodes.get(Integer.parseInt(words[1]));
              cluster.startJettySolrRunner(node, true);
              cluster.waitForNode(node, 60);
              out.println("{\"started\":" + words[1] + "}");
            }
            case "urls" -> out.println(describe(cluster, nodes));
            case "security" -> {
              // the cluster's security.json (authentication and authorization) from a file
              byte[] json =
                  Files.readAllBytes(Path.of(line.trim().substring("security".length()).trim()));
              cluster.zkSetData("/security.json", json, true);
              out.println("{\"security\":true}");
            }
            case "quit" -> {
              return;
            }
            default -> out.println("{\"error\":\"unknown command\"}");
          }
        } catch (Exception e) {
          out.println("{\"error\":\"" + e.toString().replace("\"", "'") + "\"}");
        }
      }
    } finally {
      cluster.shutdown();
    }
  }

  private static String describe(MiniSolrCloudCluster cluster, List<JettySolrRunner> nodes) {
    String urls =
        nodes.stream()
            .map(n -> "\"" + n.getBaseUrl().toString() + "\"")
            .collect(Collectors.joining(","));
    return "{\"urls\":[" + urls + "],\"zkHost\":\"" + cluster.getZkServer().getZkAddress() + "\"}";
  }
}
