package dev.lancelot.spark;

import com.esotericsoftware.kryo.Kryo;
import dev.lancelot.spark.write.LanceCommitMessage;
import dev.lancelot.spark.write.LanceDeltaCommitMessage;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * Registers the lancelot classes that cross Spark's configured serializer, for sessions with {@code
 * spark.kryo.registrationRequired=true}:
 *
 * <pre>
 * spark.serializer=org.apache.spark.serializer.KryoSerializer
 * spark.kryo.registrationRequired=true
 * spark.kryo.registrator=dev.lancelot.spark.LanceKryoRegistrator
 * </pre>
 *
 * <p>These classes serialize themselves ({@link com.esotericsoftware.kryo.KryoSerializable}); what
 * they carry (engine records, arrays, lists, the Hadoop configuration broadcast to executors) never
 * reaches Kryo. The only other classes are the arrays behind the small collections lancelot
 * parallelizes (search unit numbers, groups of fragment ids), which Spark itself does not register.
 * Without {@code registrationRequired} the registrator is optional: Kryo picks the same serializers
 * for unregistered classes. To combine it with registrators of your own, list them all, separated
 * by commas.
 */
public final class LanceKryoRegistrator implements KryoRegistrator {
  @Override
  public void registerClasses(Kryo kryo) {
    kryo.register(LanceCommitMessage.class);
    kryo.register(LanceDeltaCommitMessage.class);
    kryo.register(JavaSerialized.class);
    kryo.register(SerializableConfiguration.class);
    // Elements of the small collections lancelot parallelizes (search unit numbers, fragment id
    // groups): Spark keeps them in an ArraySeq over an array of these.
    kryo.register(Integer[].class);
    kryo.register(long[][].class);
  }
}
