package dev.lancelot.spark;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.SparkEnv;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

/**
 * One local[2] Spark session (and Arrow allocator for the oracle) per test class, with lancelot's
 * extension and catalog {@code lance} (a {@link LanceCatalog} rooted at the warehouse directory
 * unless a test sets {@code spark.sql.catalog.lance.root} before its first use). A class marked
 * {@link WithKryo} gets a session that serializes with Kryo, registration required, as production
 * clusters often do: subclasses of the end-to-end tests marked so run every flow under both
 * serializers.
 */
public abstract class SharedSpark {
  protected static SparkSession spark;
  protected static BufferAllocator allocator;

  /**
   * The test class's session uses Kryo with {@code registrationRequired} and {@link
   * LanceKryoRegistrator}.
   */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.TYPE)
  @Inherited
  public @interface WithKryo {}

  /** The settings every test session shares. */
  static SparkSession.Builder localSession() {
    return SparkSession.builder()
        .master("local[2]")
        .appName("lancelot-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.extensions", LanceSparkExtensions.class.getName())
        .config("spark.sql.catalog.lance", LanceCatalog.class.getName());
  }

  /** Kryo as a strict production setup configures it. */
  static SparkSession.Builder withKryo(SparkSession.Builder builder) {
    return builder
        .config("spark.serializer", KryoSerializer.class.getName())
        .config("spark.kryo.registrationRequired", "true")
        .config("spark.kryo.registrator", LanceKryoRegistrator.class.getName());
  }

  @BeforeAll
  static void startSpark(TestInfo info) {
    SparkSession.Builder builder = localSession();
    boolean kryo =
        info.getTestClass().map(c -> c.isAnnotationPresent(WithKryo.class)).orElse(false);
    if (kryo) {
      builder = withKryo(builder);
    }
    spark = builder.getOrCreate();
    if (kryo != SparkEnv.get().serializer() instanceof KryoSerializer) {
      throw new IllegalStateException(
          "The session of " + info.getDisplayName() + " does not use the serializer asked for");
    }
    allocator = new RootAllocator();
  }

  /**
   * Runs {@code action} with {@code listener} on the bus; returns once it has seen every event the
   * action caused.
   */
  protected static void listening(
      org.apache.spark.scheduler.SparkListener listener, Runnable action)
      throws java.util.concurrent.TimeoutException {
    spark.sparkContext().addSparkListener(listener);
    try {
      action.run();
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
  }

  @AfterAll
  static void stopSpark() {
    allocator.close();
    spark.stop();
    spark = null;
  }
}
