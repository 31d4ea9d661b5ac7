package dev.lancelot.spark.write;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What one write task produced: uncommitted fragments. It travels from the task to the driver
 * through Spark's configured serializer: under Java serialization as a plain object, under Kryo
 * (which cannot rebuild records or immutable lists, see docs/decisions.md D14) as {@code [varint]
 * count} followed by each fragment's manifest entry as {@code [varint] length, [bytes] DataFragment
 * protobuf}.
 */
public final class LanceCommitMessage implements WriterCommitMessage, KryoSerializable {
  private static final long serialVersionUID = 1L;
  private List<FragmentMetadata> fragments;

  public LanceCommitMessage(List<FragmentMetadata> fragments) {
    this.fragments = List.copyOf(fragments);
  }

  /** For Kryo, which fills the fragments in {@link #read}. */
  private LanceCommitMessage() {}

  public List<FragmentMetadata> fragments() {
    return fragments;
  }

  @Override
  public void write(Kryo kryo, Output output) {
    writeFragments(output, fragments);
  }

  /**
   * The fragments as a count and length-prefixed protobuf bytes (shared with the row-level
   * message).
   */
  static void writeFragments(Output output, List<FragmentMetadata> fragments) {
    output.writeInt(fragments.size(), true);
    for (FragmentMetadata f : fragments) {
      byte[] bytes = f.toBytes();
      output.writeInt(bytes.length, true);
      output.writeBytes(bytes);
    }
  }

  /** Reads what {@link #writeFragments} wrote; {@code task} names the task kind in errors. */
  static List<FragmentMetadata> readFragments(Input input, String task) {
    int n = input.readInt(true);
    List<FragmentMetadata> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] bytes = input.readBytes(input.readInt(true));
      try {
        out.add(FragmentMetadata.fromBytes(bytes));
      } catch (InvalidInputException e) {
        throw new KryoException(
            "Corrupt fragment metadata in a " + task + " task's commit message", e);
      }
    }
    return List.copyOf(out);
  }

  @Override
  public void read(Kryo kryo, Input input) {
    fragments = readFragments(input, "write");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LanceCommitMessage other && fragments.equals(other.fragments);
  }

  @Override
  public int hashCode() {
    return fragments.hashCode();
  }

  @Override
  public String toString() {
    return "LanceCommitMessage" + fragments;
  }
}
