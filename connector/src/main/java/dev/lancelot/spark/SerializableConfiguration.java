package dev.lancelot.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.apache.hadoop.conf.Configuration;

/**
 * Ships a Hadoop configuration (credentials, endpoints) from the driver to executors, under Java
 * serialization (closures) and under Kryo (broadcast values, see {@link ConfigurationBroadcasts}).
 */
public final class SerializableConfiguration implements Serializable, KryoSerializable {
  private static final long serialVersionUID = 1L;
  private transient Configuration conf;

  /** For Kryo, which fills the configuration in {@link #read}. */
  private SerializableConfiguration() {}

  public SerializableConfiguration(Configuration conf) {
    this.conf = conf;
  }

  public Configuration get() {
    return conf;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    conf.write(out);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    conf = new Configuration(false);
    conf.readFields(in);
  }

  @Override
  public void write(Kryo kryo, Output output) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      conf.write(out);
    } catch (IOException e) {
      throw new KryoException("Cannot serialize a Hadoop configuration: " + e.getMessage(), e);
    }
    output.writeInt(bytes.size(), true);
    output.writeBytes(bytes.toByteArray());
  }

  @Override
  public void read(Kryo kryo, Input input) {
    byte[] bytes = input.readBytes(input.readInt(true));
    conf = new Configuration(false);
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      conf.readFields(in);
    } catch (IOException e) {
      throw new KryoException("Cannot deserialize a Hadoop configuration: " + e.getMessage(), e);
    }
  }
}
