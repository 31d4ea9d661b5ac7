package dev.lancelot.spark;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A minimal HTTP/1.1 relay between S3A and S3Mock that forwards every {@code PUT} whose path
 * contains {@code /_versions/} (the manifests, written with {@code If-None-Match: *}) one at a
 * time, from the request to the end of S3Mock's answer. S3Mock's conditional PUT is
 * check-then-write, so two concurrent ones may both succeed; serialized, the second always sees the
 * first's object and gets 412, as on AWS S3. Everything else is forwarded concurrently, unchanged.
 *
 * <p>For fault tests, a {@link Fault} rule can make the relay lose the answer to a request after
 * S3Mock acted on it ({@link Action#APPLY_THEN_RESET}), or keep a request back and break the
 * client's connection, forwarding the request only when the test {@linkplain #releaseHeld releases}
 * it ({@link Action#HOLD_THEN_RESET}: a request that reaches the store after its client gave up).
 *
 * <p>One request per client connection: the request goes upstream with {@code Connection: close}
 * and the answer is copied back until S3Mock closes, so the client opens a new connection for the
 * next request. {@code Expect: 100-continue} is answered by the relay itself.
 */
final class S3Relay implements AutoCloseable {
  private final ServerSocket server;
  private final String upstreamHost;
  private final int upstreamPort;
  private final ExecutorService pool =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "s3-relay");
            t.setDaemon(true);
            return t;
          });
  private final ReentrantLock versionsLock = new ReentrantLock(true);
  final AtomicInteger versionPuts = new AtomicInteger();
  final AtomicInteger versionPutsRefused = new AtomicInteger();
  private volatile Fault fault = (method, path) -> Action.PASS;
  private final List<byte[]> held = new ArrayList<>();

  /** What the relay does with one request. */
  enum Action {
    /** Forwards it and relays the answer. */
    PASS,
    /**
     * Forwards it, waits for S3Mock's answer, then resets the client's connection instead of
     * answering.
     */
    APPLY_THEN_RESET,
    /** Keeps it back (see {@link #releaseHeld}) and resets the client's connection at once. */
    HOLD_THEN_RESET
  }

  /** Decides per request, from its method and path (with the query string). */
  interface Fault {
    Action on(String method, String path);
  }

  /** Applies {@code rule} to every request from now on. */
  void fault(Fault rule) {
    fault = rule;
  }

  /** Relays everything again. */
  void noFaults() {
    fault = (method, path) -> Action.PASS;
  }

  /**
   * Forwards the requests held back so far, in the order they came, and returns S3Mock's status
   * codes.
   */
  List<Integer> releaseHeld() throws IOException {
    List<byte[]> requests;
    synchronized (held) {
      requests = new ArrayList<>(held);
      held.clear();
    }
    List<Integer> codes = new ArrayList<>();
    for (byte[] request : requests) {
      try (Socket upstream = new Socket(upstreamHost, upstreamPort)) {
        upstream.getOutputStream().write(request);
        upstream.getOutputStream().flush();
        String status =
            new String(upstream.getInputStream().readNBytes(12), StandardCharsets.ISO_8859_1);
        codes.add(Integer.parseInt(status.substring(9, 12)));
        upstream.getInputStream().transferTo(OutputStream.nullOutputStream());
      }
    }
    return codes;
  }

  private static void reset(Socket client) throws IOException {
    client.setSoLinger(true, 0); // closing now sends RST: the client sees "Connection reset"
    client.close();
  }

  private S3Relay(ServerSocket server, String upstreamHost, int upstreamPort) {
    this.server = server;
    this.upstreamHost = upstreamHost;
    this.upstreamPort = upstreamPort;
  }

  static S3Relay start(String upstreamHost, int upstreamPort) throws IOException {
    S3Relay relay =
        new S3Relay(
            new ServerSocket(0, 200, InetAddress.getLoopbackAddress()), upstreamHost, upstreamPort);
    relay.pool.execute(relay::acceptLoop);
    return relay;
  }

  int port() {
    return server.getLocalPort();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        pool.execute(() -> serve(client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      OutputStream toClient = client.getOutputStream();
      String head = readHead(in);
      if (head == null) {
        return;
      }
      String[] lines = head.split("\r\n");
      String requestLine = lines[0];
      List<String> headers = new ArrayList<>();
      long contentLength = 0;
      boolean chunked = false;
      boolean expectContinue = false;
      for (int i = 1; i < lines.length; i++) {
        String line = lines[i];
        int colon = line.indexOf(':');
        String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = line.substring(colon + 1).trim();
        switch (name) {
          case "connection", "keep-alive" -> {}
          case "expect" -> expectContinue = value.equalsIgnoreCase("100-continue");
          case "content-length" -> {
            contentLength = Long.parseLong(value);
            headers.add(line);
          }
          case "transfer-encoding" -> {
            chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
            headers.add(line);
          }
          default -> headers.add(line);
        }
      }
      if (expectContinue) {
        toClient.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        toClient.flush();
      }
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      StringBuilder sb = new StringBuilder(requestLine).append("\r\n");
      for (String h : headers) {
        sb.append(h).append("\r\n");
      }
      sb.append("Connection: close\r\n\r\n");
      request.write(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
      if (chunked) {
        copyChunked(in, request);
      } else {
        request.write(in.readNBytes(Math.toIntExact(contentLength)));
      }
      String[] parts = requestLine.split(" ");
      Action action = fault.on(parts[0], parts[1]);
      if (action == Action.HOLD_THEN_RESET) {
        synchronized (held) {
          held.add(request.toByteArray());
        }
        reset(client);
        return;
      }
      boolean serialize = parts[0].equals("PUT") && parts[1].contains("/_versions/");
      if (serialize) {
        versionsLock.lock();
      }
      try (Socket upstream = new Socket(upstreamHost, upstreamPort)) {
        upstream.getOutputStream().write(request.toByteArray());
        upstream.getOutputStream().flush();
        InputStream fromUpstream = upstream.getInputStream();
        byte[] first = fromUpstream.readNBytes(12);
        if (serialize) {
          versionPuts.incrementAndGet();
          if (new String(first, StandardCharsets.ISO_8859_1).endsWith("412")) {
            versionPutsRefused.incrementAndGet();
          }
        }
        if (action == Action.APPLY_THEN_RESET) {
          fromUpstream.transferTo(OutputStream.nullOutputStream());
          reset(client);
          return;
        }
        toClient.write(first);
        fromUpstream.transferTo(toClient);
        toClient.flush();
      } finally {
        if (serialize) {
          versionsLock.unlock();
        }
      }
    } catch (IOException | RuntimeException e) {
      // the client sees a broken connection and retries
    }
  }

  /** The request line and headers, up to the blank line; null at end of stream. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int state = 0;
    while (state < 4) {
      int b = in.read();
      if (b < 0) {
        return null;
      }
      buf.write(b);
      state =
          switch (state) {
            case 0, 2 -> b == '\r' ? state + 1 : 0;
            case 1, 3 -> b == '\n' ? state + 1 : (b == '\r' ? 1 : 0);
            default -> 0;
          };
    }
    String head = buf.toString(StandardCharsets.ISO_8859_1);
    return head.substring(0, head.length() - 4);
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      if (b != '\r') {
        sb.append((char) b);
      }
    }
    return sb.toString();
  }

  private static void copyChunked(InputStream in, ByteArrayOutputStream out) throws IOException {
    while (true) {
      String sizeLine = readLine(in);
      out.write((sizeLine + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      int semi = sizeLine.indexOf(';');
      int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
      if (size == 0) {
        String trailer;
        while (!(trailer = readLine(in)).isEmpty()) {
          out.write((trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        }
        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        return;
      }
      out.write(in.readNBytes(size));
      readLine(in);
      out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException ignored) {
      // closing
    }
    pool.shutdownNow();
  }
}
