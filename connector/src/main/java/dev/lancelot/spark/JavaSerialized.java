package dev.lancelot.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.Objects;

/**
 * An engine value that crosses Spark's configured serializer (broadcast values, elements of {@code
 * parallelize}, task results), in its Java serialization form under both serializers.
 *
 * <p>Spark 4.1 ships Kryo 4, whose default {@code FieldSerializer} cannot set the final fields of
 * Java records ({@code can't get field offset on a record class}) and cannot rebuild immutable
 * lists ({@code List.of}). The engine's travelling types are records holding such lists, and the
 * engine does not know Kryo. So under Kryo this wrapper writes the value's Java serialization as
 * one length-prefixed byte array ({@link KryoSerializable}, which Kryo picks without any
 * registration); under Spark's {@code JavaSerializer} the value is written as a plain field. Only
 * this class needs registering when {@code spark.kryo.registrationRequired=true} ({@link
 * LanceKryoRegistrator}). See docs/decisions.md (D14).
 *
 * @param <T> the wrapped value's type
 */
public final class JavaSerialized<T extends Serializable>
    implements KryoSerializable, Serializable {
  private static final long serialVersionUID = 1L;
  private T value;

  /** For Kryo, which fills the value in {@link #read}. */
  private JavaSerialized() {}

  private JavaSerialized(T value) {
    this.value = Objects.requireNonNull(value, "value");
  }

  public static <T extends Serializable> JavaSerialized<T> of(T value) {
    return new JavaSerialized<>(value);
  }

  public T get() {
    return value;
  }

  @Override
  public void write(Kryo kryo, Output output) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
      out.flush();
      output.writeInt(bytes.size(), true);
      bytes.writeTo(output);
    } catch (IOException e) {
      throw new KryoException(
          "Cannot serialize " + value.getClass().getName() + ": " + e.getMessage(), e);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public void read(Kryo kryo, Input input) {
    byte[] bytes = input.readBytes(input.readInt(true));
    ClassLoader loader = kryo.getClassLoader();
    try (ObjectInputStream in =
        new LoaderObjectInputStream(new ByteArrayInputStream(bytes), loader)) {
      value = (T) in.readObject();
    } catch (IOException | ClassNotFoundException e) {
      throw new KryoException("Cannot deserialize a lancelot value: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JavaSerialized<?> other && value.equals(other.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return "JavaSerialized[" + value + "]";
  }

  /** Resolves classes with the class loader Spark gave Kryo (the task's, with the user's jars). */
  private static final class LoaderObjectInputStream extends ObjectInputStream {
    private final ClassLoader loader;

    LoaderObjectInputStream(InputStream in, ClassLoader loader) throws IOException {
      super(in);
      this.loader = loader;
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc)
        throws IOException, ClassNotFoundException {
      try {
        return Class.forName(desc.getName(), false, loader);
      } catch (ClassNotFoundException e) {
        return super.resolveClass(desc);
      }
    }
  }
}
