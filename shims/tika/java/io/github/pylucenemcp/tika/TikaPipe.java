package io.github.pylucenemcp.tika;

import io.github.pylucenemcp.checks.SuppressForbidden;
import io.github.pylucenemcp.search.Json;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.tika.Tika;
import org.apache.tika.io.TikaInputStream;
import org.apache.tika.metadata.Metadata;
import org.apache.tika.metadata.TikaCoreProperties;
import org.apache.tika.parser.AutoDetectParser;
import org.apache.tika.parser.ParseContext;
import org.apache.tika.parser.Parser;
import org.apache.tika.parser.RecursiveParserWrapper;
import org.apache.tika.parser.ocr.TesseractOCRConfig;
import org.apache.tika.parser.pdf.PDFParserConfig;
import org.apache.tika.sax.BasicContentHandlerFactory;
import org.apache.tika.sax.RecursiveParserWrapperHandler;

/**
 * Apache Tika behind its own standard input and output: the crawler's parser process, reachable by
 * nobody but the process that started it (no port, no socket, no file name to take).
 *
 * <pre>
 *   java -cp tika-server-standard.jar:pylucene-mcp-tika.jar io.github.pylucenemcp.tika.TikaPipe
 *       WRITE_LIMIT [OCR_LANGUAGES OCR_PAGE_SECONDS OCR_DPI]
 * </pre>
 *
 * <p>Without {@code OCR_LANGUAGES} no text is recognised in images, not even where Tesseract is
 * installed (Tika would otherwise OCR every image-only PDF page inline, in English, with no limit
 * but the parse's). With them (Tesseract's form, {@code eng+deu}) the process is an OCR one: the
 * images (PNG, JPEG, TIFF, ...) are read by Tesseract, each at most {@code OCR_PAGE_SECONDS}, and
 * so is each PDF page that has no text of its own, rendered at {@code OCR_DPI} (Tika's {@code auto}
 * strategy: a page with text keeps it), its text at its page.
 *
 * <p>Frames, big-endian, each starting with {@link #MAGIC}. A request on stdin: {@code int id, int
 * nameLength, byte[] name (UTF-8, the file's name: a hint for type detection), long length, byte[]
 * body (the file's bytes)}. An answer on stdout: {@code int id, int kind, int length, byte[]
 * payload (UTF-8)}, where kind {@link #READY} (id 0, Tika's version) comes once when the parsers
 * are loaded and {@link #PARSED} carries the JSON list of the document's and its embedded
 * documents' metadata, the XHTML text under {@code X-TIKA:content}, as Tika server's {@code
 * /rmeta/xml} gives it; a parser's failure is {@code X-TIKA:EXCEPTION:container_exception} in the
 * first. Text beyond {@code WRITE_LIMIT} characters, the document and its embedded documents
 * together, is cut ({@code X-TIKA:write_limit_reached}).
 *
 * <p>Requests are parsed on threads of their own; the answers come as they finish. A body larger
 * than {@link #IN_MEMORY} bytes is spooled to {@code java.io.tmpdir} (the caller's private folder)
 * for the parse and deleted after it. Timeouts and memory are the caller's: it kills the process
 * (which exits by itself when its standard input closes or its heap runs out).
 */
public final class TikaPipe {
  /** "PLMT": every frame's first four bytes, so a stray write on stdout is noticed, not parsed. */
  public static final int MAGIC = 0x504c4d54;

  public static final int READY = 1;
  public static final int PARSED = 2;

  /** Bodies up to this size are parsed from memory. */
  static final int IN_MEMORY = 4 << 20;

  /** How long the parses under way may still answer once the requests have ended. */
  static final int DRAIN_SECONDS = 10;

  private final Parser parser = new AutoDetectParser();
  private final int writeLimit;
  private final Ocr ocr;
  private final DataOutputStream out;

  TikaPipe(int writeLimit, Ocr ocr, OutputStream out) {
    this.writeLimit = writeLimit;
    this.ocr = ocr;
    this.out = new DataOutputStream(new BufferedOutputStream(out, 1 << 16));
  }

  /** How text is recognised in images: Tesseract's languages, its time per page, the DPI. */
  record Ocr(String languages, int pageSeconds, int dpi) {
    /** The settings from the command line after the write limit; null: no OCR. */
    static Ocr of(String[] args) {
      if (args.length < 4) {
        return null;
      }
      return new Ocr(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
    }
  }

  @SuppressForbidden(reason = "stdout is the protocol's; everything else printed goes to stderr")
  public static void main(String[] args) throws IOException {
    OutputStream protocol = new FileOutputStream(FileDescriptor.out);
    PrintStream stderr = new PrintStream(new FileOutputStream(FileDescriptor.err), true, "UTF-8");
    System.setOut(stderr); // a parser that prints must not corrupt a frame
    int writeLimit = args.length > 0 ? Integer.parseInt(args[0]) : -1;
    TikaPipe pipe = new TikaPipe(writeLimit, Ocr.of(args), protocol);
    pipe.run(new FileInputStream(FileDescriptor.in));
    System.exit(0); // stdin closed: the caller is gone or done
  }

  /** Answers the requests read from {@code in} until it ends. */
  void run(InputStream in) throws IOException {
    answer(0, READY, new Tika().toString().getBytes(StandardCharsets.UTF_8));
    DataInputStream requests = new DataInputStream(new BufferedInputStream(in, 1 << 16));
    ExecutorService pool =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "tika-parse");
              thread.setDaemon(true);
              return thread;
            });
    try {
      while (true) {
        int magic;
        try {
          magic = requests.readInt();
        } catch (EOFException end) {
          return;
        }
        if (magic != MAGIC) {
          throw new IOException("not a request frame: " + Integer.toHexString(magic));
        }
        int id = requests.readInt();
        byte[] name = new byte[requests.readInt()];
        requests.readFully(name);
        long length = requests.readLong();
        Body body = Body.read(requests, length);
        String resourceName = new String(name, StandardCharsets.UTF_8);
        pool.execute(() -> parseAndAnswer(id, resourceName, body));
      }
    } finally {
      pool.shutdown(); // the parses under way still answer, for a while
      try {
        pool.awaitTermination(DRAIN_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void parseAndAnswer(int id, String name, Body body) {
    String json;
    try (body) {
      json = parse(name, body);
    } catch (IOException | RuntimeException e) {
      json = failure(e);
    }
    try {
      answer(id, PARSED, json.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // stdout is gone: so is the caller; the read loop ends with stdin
    }
  }

  /** The JSON metadata list of one document, as Tika server's {@code /rmeta/xml} writes it. */
  String parse(String name, Body body) throws IOException {
    Metadata metadata = new Metadata();
    if (!name.isEmpty()) {
      metadata.set(TikaCoreProperties.RESOURCE_NAME_KEY, name);
    }
    ParseContext context = context();
    BasicContentHandlerFactory factory =
        new BasicContentHandlerFactory(
            BasicContentHandlerFactory.HANDLER_TYPE.XML, writeLimit, true, context);
    RecursiveParserWrapperHandler handler = new RecursiveParserWrapperHandler(factory);
    Throwable failure = null;
    try (TikaInputStream stream = body.open()) {
      new RecursiveParserWrapper(parser).parse(stream, handler, metadata, context);
    } catch (Exception | StackOverflowError | NoClassDefFoundError e) {
      failure = e;
    }
    List<Metadata> parts = new ArrayList<>(handler.getMetadataList());
    if (parts.isEmpty()) {
      parts.add(metadata);
    }
    Metadata first = parts.get(0);
    if (failure != null && first.get(TikaCoreProperties.CONTAINER_EXCEPTION) == null) {
      first.set(TikaCoreProperties.CONTAINER_EXCEPTION, trace(failure));
    }
    return metadataList(parts);
  }

  /** A parse's settings: OCR skipped, or Tesseract's and the PDF pages' as {@link #ocr} says. */
  private ParseContext context() {
    ParseContext context = new ParseContext();
    TesseractOCRConfig tesseract = new TesseractOCRConfig();
    PDFParserConfig pdf = new PDFParserConfig();
    if (ocr == null) {
      tesseract.setSkipOcr(true);
      pdf.setOcrStrategy(PDFParserConfig.OCR_STRATEGY.NO_OCR);
    } else {
      tesseract.setLanguage(ocr.languages());
      tesseract.setTimeoutSeconds(ocr.pageSeconds());
      pdf.setOcrStrategy(PDFParserConfig.OCR_STRATEGY.AUTO);
      pdf.setOcrDPI(ocr.dpi());
    }
    context.set(TesseractOCRConfig.class, tesseract);
    context.set(PDFParserConfig.class, pdf);
    return context;
  }

  private static String failure(Throwable e) {
    Metadata metadata = new Metadata();
    metadata.set(TikaCoreProperties.CONTAINER_EXCEPTION, trace(e));
    return metadataList(List.of(metadata));
  }

  private static String trace(Throwable e) {
    StringWriter text = new StringWriter();
    e.printStackTrace(new PrintWriter(text));
    return text.toString();
  }

  private void answer(int id, int kind, byte[] payload) throws IOException {
    synchronized (out) {
      out.writeInt(MAGIC);
      out.writeInt(id);
      out.writeInt(kind);
      out.writeInt(payload.length);
      out.write(payload);
      out.flush();
    }
  }

  /** A request's bytes: in memory, or spooled to a private file when large. */
  static final class Body implements AutoCloseable {
    private final byte[] bytes;
    private final Path file;

    private Body(byte[] bytes, Path file) {
      this.bytes = bytes;
      this.file = file;
    }

    static Body read(DataInputStream in, long length) throws IOException {
      if (length < 0) {
        throw new IOException("a negative body length");
      }
      if (length <= IN_MEMORY) {
        byte[] bytes = new byte[(int) length];
        in.readFully(bytes);
        return new Body(bytes, null);
      }
      Path file = Files.createTempFile("tika-pipe-", ".bin");
      try (OutputStream copy = Files.newOutputStream(file)) {
        byte[] buffer = new byte[1 << 16];
        long left = length;
        while (left > 0) {
          int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
          if (n < 0) {
            throw new EOFException("the request ended inside its body");
          }
          copy.write(buffer, 0, n);
          left -= n;
        }
      } catch (IOException e) {
        Files.deleteIfExists(file);
        throw e;
      }
      return new Body(null, file);
    }

    TikaInputStream open() throws IOException {
      return file == null ? TikaInputStream.get(bytes) : TikaInputStream.get(file);
    }

    @Override
    public void close() throws IOException {
      if (file != null) {
        Files.deleteIfExists(file);
      }
    }
  }

  /**
   * Metadata lists as JSON, the shape of Tika server's {@code /rmeta}: {@code [{"name": "value" or
   * ["value", …], …}, …]}, one object a document; a name with one value maps to it, with more to
   * the list of them; names sorted, so the same document gives the same text. A lone surrogate (a
   * parser's broken text) becomes U+FFFD.
   */
  static String metadataList(List<Metadata> parts) {
    Json json = Json.replacingLoneSurrogates().array();
    for (Metadata metadata : parts) {
      String[] names = metadata.names();
      Arrays.sort(names);
      json.object();
      for (String name : names) {
        String[] values = metadata.getValues(name);
        json.name(name);
        if (values.length == 1) {
          json.string(values[0]);
        } else {
          json.array();
          for (String value : values) {
            json.string(value);
          }
          json.end();
        }
      }
      json.end();
    }
    return json.end().toString();
  }
}
