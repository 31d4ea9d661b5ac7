package dev.lancelot.spark.write;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.lancelot.engine.FragmentMetadata;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.roaringbitmap.RoaringBitmap;

/**
 * What one row-level task produced: uncommitted fragments of new rows and the deleted rows, by
 * fragment id. Under Kryo (D14) it is {@code [varint] fragment count}, each fragment as {@code
 * [varint] length, [bytes] DataFragment protobuf}, then {@code [varint] deleted fragment count},
 * each as {@code [varlong] fragment id, [varint] length, [bytes] portable RoaringBitmap} of row
 * offsets.
 */
public final class LanceDeltaCommitMessage implements WriterCommitMessage, KryoSerializable {
  private static final long serialVersionUID = 1L;
  private List<FragmentMetadata> fragments;
  private HashMap<Long, RoaringBitmap> deletes;

  public LanceDeltaCommitMessage(
      List<FragmentMetadata> fragments, Map<Long, RoaringBitmap> deletes) {
    this.fragments = List.copyOf(fragments);
    this.deletes = new HashMap<>(deletes);
  }

  /** For Kryo, which fills the fields in {@link #read}. */
  private LanceDeltaCommitMessage() {}

  public List<FragmentMetadata> fragments() {
    return fragments;
  }

  /** Deleted row offsets by fragment id (a copy). */
  public Map<Long, RoaringBitmap> deletes() {
    Map<Long, RoaringBitmap> out = new HashMap<>();
    deletes.forEach((k, v) -> out.put(k, v.clone()));
    return out;
  }

  @Override
  public void write(Kryo kryo, Output output) {
    LanceCommitMessage.writeFragments(output, fragments);
    output.writeInt(deletes.size(), true);
    for (Map.Entry<Long, RoaringBitmap> e : new TreeMap<>(deletes).entrySet()) {
      output.writeLong(e.getKey(), true);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        e.getValue().serialize(out);
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
      output.writeInt(bytes.size(), true);
      output.writeBytes(bytes.toByteArray());
    }
  }

  @Override
  public void read(Kryo kryo, Input input) {
    fragments = LanceCommitMessage.readFragments(input, "row-level");
    int d = input.readInt(true);
    deletes = new HashMap<>();
    for (int i = 0; i < d; i++) {
      long fragment = input.readLong(true);
      byte[] bytes = input.readBytes(input.readInt(true));
      RoaringBitmap rows = new RoaringBitmap();
      try {
        rows.deserialize(new DataInputStream(new ByteArrayInputStream(bytes)));
      } catch (IOException e) {
        throw new KryoException(
            "Corrupt deleted rows of fragment "
                + fragment
                + " in a row-level task's commit "
                + "message",
            e);
      }
      deletes.put(fragment, rows);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LanceDeltaCommitMessage other
        && fragments.equals(other.fragments)
        && deletes.equals(other.deletes);
  }

  @Override
  public int hashCode() {
    return fragments.hashCode() * 31 + deletes.hashCode();
  }

  @Override
  public String toString() {
    return "LanceDeltaCommitMessage[fragments=" + fragments + ", deletes=" + deletes + "]";
  }
}
