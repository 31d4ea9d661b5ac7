package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.Test;

/** The Hadoop configuration reaches tasks through one broadcast per distinct content. */
@SharedSpark.WithKryo
class ConfigurationBroadcastsTest extends SharedSpark {
  @Test
  void equalConfigurationsShareABroadcastAndAChangeMakesANewOne() {
    Configuration a = spark.sessionState().newHadoopConf();
    a.set("lancelot.test.setting", "one");
    Configuration b = spark.sessionState().newHadoopConf();
    b.set("lancelot.test.setting", "one");
    Configuration c = spark.sessionState().newHadoopConf();
    c.set("lancelot.test.setting", "two");

    Broadcast<SerializableConfiguration> first =
        ConfigurationBroadcasts.of(spark.sparkContext(), a);
    assertThat(ConfigurationBroadcasts.of(spark.sparkContext(), b)).isSameAs(first);
    Broadcast<SerializableConfiguration> changed =
        ConfigurationBroadcasts.of(spark.sparkContext(), c);
    assertThat(changed).isNotSameAs(first);
    // A later change to the caller's object does not leak into what was shipped.
    a.set("lancelot.test.setting", "three");

    // Read back in tasks (through Kryo with registration required, as a strict cluster does).
    List<String> seen =
        JavaSparkContext.fromSparkContext(spark.sparkContext())
            .parallelize(List.of(1, 2), 2)
            .map(i -> (i == 1 ? first : changed).value().get().get("lancelot.test.setting"))
            .collect();
    assertThat(seen).containsExactly("one", "two");
  }
}
