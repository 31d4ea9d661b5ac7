package dev.lancelot.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.StandardData;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The runtime jar (runtime/target/lancelot-spark-runtime-*.jar) holds lancelot and what Spark does
 * not provide, relocated, and nothing Spark provides; its classes work on Spark's classpath alone.
 */
class RuntimeJarTest {
  private static final String SHADED = "dev/lancelot/shaded/";
  private static Path jar;
  private static List<String> entries;

  @BeforeAll
  static void openJar() throws IOException {
    jar = Paths.get(System.getProperty("lancelot.runtimeJar")).normalize();
    assertThat(jar)
        .as(
            "the runtime jar, built by the runtime module's package phase (mvn verify with the runtime"
                + " module in the reactor)")
        .isRegularFile();
    try (JarFile j = new JarFile(jar.toFile())) {
      entries = Collections.list(j.entries()).stream().map(JarEntry::getName).toList();
    }
  }

  @Test
  void holdsLancelotAndRelocatedDependenciesOnly() {
    List<String> classes = entries.stream().filter(e -> e.endsWith(".class")).toList();
    assertThat(classes)
        .as(
            "classes outside dev/lancelot/ (Spark, Scala, Arrow, Hadoop, Jackson, Roaring, netty,"
                + " slf4j, protobuf, aircompressor...)")
        .allMatch(e -> e.startsWith("dev/lancelot/"));
    assertThat(entries)
        .noneMatch(
            e ->
                e.startsWith("com/google/protobuf/")
                    || e.startsWith("io/airlift/")
                    || e.startsWith("org/apache/")
                    || e.startsWith("scala/")
                    || e.startsWith("com/fasterxml/")
                    || e.startsWith("org/roaringbitmap/")
                    || e.startsWith("io/netty/")
                    || e.startsWith("org/slf4j/"));
    assertThat(entries)
        .contains(
            "dev/lancelot/engine/Dataset.class",
            "dev/lancelot/engine/internal/format/proto/FileProtos.class",
            "dev/lancelot/spark/LanceDataSource.class",
            "dev/lancelot/spark/LanceSparkExtensions.class",
            "dev/lancelot/spark/search/LanceVectorSearch.class",
            SHADED + "com/google/protobuf/GeneratedMessage.class",
            SHADED + "io/airlift/compress/zstd/ZstdDecompressor.class");
  }

  @Test
  void registersTheDataSourceWithAClassItHolds() throws IOException {
    String service = "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister";
    assertThat(entries).contains(service);
    try (JarFile j = new JarFile(jar.toFile());
        InputStream in = j.getInputStream(j.getEntry(service))) {
      List<String> names =
          new String(in.readAllBytes(), StandardCharsets.UTF_8)
              .lines()
              .map(String::trim)
              .filter(l -> !l.isEmpty() && !l.startsWith("#"))
              .toList();
      assertThat(names).containsExactly("dev.lancelot.spark.LanceDataSource");
      for (String n : names) {
        assertThat(entries).contains(n.replace('.', '/') + ".class");
      }
    }
  }

  /**
   * The packages a jar bundles relocated: protobuf and aircompressor in every jar, plus those a
   * line's jar bundles besides ({@code lancelot.relocatedPackages}, comma-separated: Arrow and
   * flatbuffers in the Spark 3.5 jar, D53).
   */
  private static List<String> relocatedPackages() {
    List<String> out = new ArrayList<>(List.of("com/google/protobuf/", "io/airlift/compress/"));
    for (String p : System.getProperty("lancelot.relocatedPackages", "").split(",", -1)) {
      if (!p.isBlank()) {
        out.add(p.trim());
      }
    }
    return out;
  }

  /**
   * Every class, type descriptor and class-name string constant that names a relocated package
   * (protobuf, aircompressor, and those of {@link #relocatedPackages}) names the relocated copy
   * (serialized descriptors and messages may still mention the originals).
   */
  @Test
  void referencesOnlyRelocatedProtobufAndAircompressor() throws IOException {
    List<String> relocated = relocatedPackages();
    for (String pkg : relocated) {
      assertThat(entries).as("relocated %s", pkg).anyMatch(e -> e.startsWith(SHADED + pkg));
    }
    List<String> offenders = new ArrayList<>();
    int checked = 0;
    try (JarFile j = new JarFile(jar.toFile())) {
      for (JarEntry e : Collections.list(j.entries())) {
        if (!e.getName().endsWith(".class")) {
          continue;
        }
        try (InputStream in = j.getInputStream(e)) {
          ConstantPool pool = ConstantPool.read(in);
          for (String pkg : relocated) {
            pool.classNames().stream()
                .filter(n -> n.startsWith(pkg) || n.startsWith("[L" + pkg))
                .forEach(n -> offenders.add(e.getName() + " names class " + n));
            pool.utf8().stream()
                .filter(u -> u.contains("L" + pkg) && !u.contains("L" + SHADED + pkg))
                .forEach(u -> offenders.add(e.getName() + " has descriptor " + u));
            String dotted = pkg.replace('/', '.');
            pool.strings().stream()
                .filter(s -> s.startsWith(dotted) && s.matches("[A-Za-z0-9_$.]+"))
                .forEach(s -> offenders.add(e.getName() + " has class-name string " + s));
          }
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(1000);
    assertThat(offenders).isEmpty();
  }

  /**
   * Over the runtime jar and Spark's jars alone (without Spark's own protobuf-java and
   * aircompressor, so the relocated copies must serve), every lancelot class links: its fields',
   * methods' and constructors' types resolve. The engine loaded there opens a dataset, parsing its
   * manifest with the relocated protobuf.
   */
  @Test
  void linksAndRunsOnSparksClasspathAlone(@TempDir Path tmp) throws Exception {
    Path dataset = tmp.resolve("ds");
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot batch = StandardData.generate(allocator, 0, 100, 8, 1);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write(dataset.toString(), reader, WriteOptions.of(WriteMode.CREATE)).close();
    }
    List<URL> urls = new ArrayList<>();
    urls.add(jar.toUri().toURL());
    try (Stream<Path> sparkJars =
        Files.list(Paths.get(System.getProperty("lancelot.sparkHome"), "jars"))) {
      for (Path p : sparkJars.sorted().toList()) {
        String name = p.getFileName().toString();
        if (!name.startsWith("protobuf-java-") && !name.startsWith("aircompressor-")) {
          urls.add(p.toUri().toURL());
        }
      }
    }
    try (URLClassLoader loader =
        new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
      List<String> broken = new ArrayList<>();
      int linked = 0;
      for (String e : entries) {
        if (e.endsWith(".class") && e.startsWith("dev/lancelot/") && !e.startsWith(SHADED)) {
          String name = e.substring(0, e.length() - ".class".length()).replace('/', '.');
          try {
            Class<?> c = Class.forName(name, false, loader);
            // Resolving every member's types fails on a class the shading broke.
            int members =
                c.getDeclaredFields().length
                    + c.getDeclaredMethods().length
                    + c.getDeclaredConstructors().length;
            linked += members >= 0 ? 1 : 0;
          } catch (LinkageError | ClassNotFoundException err) {
            broken.add(name + ": " + err);
          }
        }
      }
      assertThat(broken).isEmpty();
      assertThat(linked).isGreaterThan(500);

      // Hadoop loads its classes through the context class loader, as on an executor.
      Thread thread = Thread.currentThread();
      ClassLoader previous = thread.getContextClassLoader();
      thread.setContextClassLoader(loader);
      try {
        Class<?> ds = Class.forName("dev.lancelot.engine.Dataset", true, loader);
        assertThat(ds.getClassLoader()).isSameAs(loader);
        Object opened = ds.getMethod("open", String.class).invoke(null, dataset.toString());
        try {
          assertThat(ds.getMethod("countRows").invoke(opened)).isEqualTo(100L);
          Method version = ds.getMethod("version");
          assertThat(version.invoke(opened)).isEqualTo(1L);
          assertThat(scannedRows(opened)).isEqualTo(100L);
        } finally {
          ds.getMethod("close").invoke(opened);
        }
      } finally {
        thread.setContextClassLoader(previous);
      }
      Class<?> message =
          Class.forName(
              SHADED.replace('/', '.') + "com.google.protobuf.GeneratedMessage", false, loader);
      assertThat(message.getClassLoader()).isSameAs(loader);
      String sparkArrow = System.getProperty("lancelot.sparkArrowVersion");
      if (sparkArrow != null) {
        bundledArrowBesidesSparks(loader, sparkArrow);
      }
    }
  }

  /**
   * The rows of a whole scan of {@code dataset} (an engine {@code Dataset} of the jar's class
   * loader), which decodes every column with the jar's (relocated) dependencies and its Arrow.
   */
  private static long scannedRows(Object dataset) throws Exception {
    Object scanner = dataset.getClass().getMethod("newScan").invoke(dataset);
    Object batches = scanner.getClass().getMethod("batches").invoke(scanner);
    long rows = 0;
    try (AutoCloseable closing = (AutoCloseable) batches) {
      java.util.Iterator<?> it = (java.util.Iterator<?>) closing;
      while (it.hasNext()) {
        Object batch = it.next();
        rows += (int) batch.getClass().getMethod("getRowCount").invoke(batch);
      }
    }
    return rows;
  }

  /**
   * A jar that bundles its own Arrow (Spark 3.5's, D53): Spark's Arrow ({@code version}) is what
   * {@code org.apache.arrow} names on Spark's classpath, and the relocated copy allocates memory
   * (its allocation manager, found by a class name the relocation rewrote, is in the jar).
   */
  private static void bundledArrowBesidesSparks(ClassLoader loader, String version)
      throws Exception {
    Class<?> sparks = Class.forName("org.apache.arrow.vector.VectorSchemaRoot", false, loader);
    assertThat(sparks.getProtectionDomain().getCodeSource().getLocation().toString())
        .contains("arrow-vector-" + version);
    String arrow = SHADED.replace('/', '.') + "org.apache.arrow.";
    Class<?> allocatorClass = Class.forName(arrow + "memory.RootAllocator", true, loader);
    assertThat(allocatorClass.getProtectionDomain().getCodeSource().getLocation())
        .isEqualTo(jar.toUri().toURL());
    try (AutoCloseable allocator = (AutoCloseable) allocatorClass.getConstructor().newInstance();
        AutoCloseable buffer =
            (AutoCloseable)
                allocatorClass.getMethod("buffer", long.class).invoke(allocator, 1024L)) {
      assertThat(buffer.getClass().getName()).isEqualTo(arrow + "memory.ArrowBuf");
      assertThat(allocatorClass.getMethod("getAllocatedMemory").invoke(allocator)).isEqualTo(1024L);
    }
  }

  /**
   * {@code --packages} resolves the pom installed with the jar: it stands alone (no parent to
   * fetch) and lists nothing the jar holds.
   */
  @Test
  void installedPomStandsAloneAndDependsOnNothingTheJarHolds() throws Exception {
    Path pom = jar.resolveSibling(System.getProperty("lancelot.runtimeArtifact") + ".pom");
    assertThat(pom).isRegularFile();
    org.w3c.dom.Document doc =
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    assertThat(doc.getElementsByTagName("parent").getLength())
        .as("parent of the installed pom")
        .isZero();
    NodeList deps = doc.getElementsByTagName("dependency");
    List<String> runtimeDeps = new ArrayList<>();
    for (int i = 0; i < deps.getLength(); i++) {
      Element d = (Element) deps.item(i);
      String scope = text(d, "scope");
      if (scope == null || scope.equals("compile") || scope.equals("runtime")) {
        runtimeDeps.add(text(d, "groupId") + ":" + text(d, "artifactId"));
      }
    }
    assertThat(runtimeDeps).as("compile/runtime dependencies of the installed pom").isEmpty();
  }

  private static String text(Element e, String tag) {
    NodeList n = e.getElementsByTagName(tag);
    return n.getLength() == 0 ? null : n.item(0).getTextContent().trim();
  }
}
