package dev.lancelot.engine.internal.index.vector.store;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.internal.format.CorruptFileException;
import dev.lancelot.engine.internal.format.proto.IndexProtos.IVF;
import dev.lancelot.engine.internal.format.proto.IndexProtos.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Encodes and decodes the {@code IVF} proto and float32 {@code Tensor}s of index files.
 *
 * <p>{@code IVF}: {@code [repeated uint64] offsets} (2), {@code [repeated uint32] lengths} (3),
 * {@code [Tensor] centroids_tensor} (4), {@code [optional double] loss} (5). Partition {@code p}
 * holds rows {@code [offsets[p], offsets[p] + lengths[p])} of the file carrying the proto; when
 * {@code offsets} is empty they are the running sums of {@code lengths} (Lance reads it so).
 *
 * <p>{@code Tensor}: {@code [enum] data_type} (1, FLOAT32 = 2), {@code [repeated uint32] shape}
 * (2), {@code [bytes] data} (3, little-endian, row-major).
 */
public final class IvfProto {
  private IvfProto() {}

  /** The partitioning of one file plus the model fields, as read. */
  public record Decoded(
      long[] offsets, int[] lengths, float[] centroids, int dimension, Double loss) {
    public int numPartitions() {
      return lengths.length;
    }
  }

  public static Decoded decode(String file, ByteBuffer bytes) {
    IVF ivf;
    try {
      ivf = IVF.parseFrom(bytes.duplicate());
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(
          file, "its IVF global buffer is not a valid IVF protobuf message", e);
    }
    int p = ivf.getLengthsCount();
    long[] offsets = new long[p];
    int[] lengths = new int[p];
    long running = 0;
    if (ivf.getOffsetsCount() != 0 && ivf.getOffsetsCount() != p) {
      throw new CorruptFileException(
          file,
          "its IVF model has "
              + ivf.getOffsetsCount()
              + " partition offsets but "
              + p
              + " partition lengths");
    }
    for (int i = 0; i < p; i++) {
      lengths[i] = ivf.getLengths(i);
      offsets[i] = ivf.getOffsetsCount() == 0 ? running : ivf.getOffsets(i);
      running += Integer.toUnsignedLong(lengths[i]);
    }
    float[] centroids = null;
    int dim = 0;
    if (ivf.hasCentroidsTensor()) {
      Tensor t = ivf.getCentroidsTensor();
      centroids = floats(file, "IVF centroids", t);
      if (t.getShapeCount() != 2 || t.getShape(0) != p) {
        throw new CorruptFileException(
            file,
            "its IVF centroids have shape "
                + t.getShapeList()
                + ", expected ["
                + p
                + ", dim] for "
                + p
                + " partitions");
      }
      dim = t.getShape(1);
    }
    return new Decoded(offsets, lengths, centroids, dim, ivf.hasLoss() ? ivf.getLoss() : null);
  }

  /** An IVF proto whose partitions are consecutive runs of {@code lengths[p]} rows. */
  public static byte[] encode(int[] lengths, float[] centroids, int dim, Double loss) {
    IVF.Builder b = IVF.newBuilder();
    long offset = 0;
    for (int len : lengths) {
      b.addOffsets(offset);
      b.addLengths(len);
      offset += len;
    }
    if (centroids != null) {
      b.setCentroidsTensor(tensor(centroids, List.of(lengths.length, dim)));
    }
    if (loss != null) {
      b.setLoss(loss);
    }
    return b.build().toByteArray();
  }

  public static Tensor tensor(float[] values, List<Integer> shape) {
    ByteBuffer data = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    data.asFloatBuffer().put(values);
    return Tensor.newBuilder()
        .setDataType(Tensor.DataType.FLOAT32)
        .addAllShape(shape)
        .setData(ByteString.copyFrom(data.array()))
        .build();
  }

  /** Decodes a float32 tensor global buffer (e.g. the PQ codebook). */
  public static Tensor parseTensor(String file, String what, ByteBuffer bytes) {
    try {
      return Tensor.parseFrom(bytes.duplicate());
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(
          file, "its " + what + " global buffer is not a valid Tensor protobuf message", e);
    }
  }

  public static float[] floats(String file, String what, Tensor t) {
    if (t.getDataType() != Tensor.DataType.FLOAT32) {
      throw new CorruptFileException(
          file,
          "its "
              + what
              + " tensor has data type "
              + t.getDataType()
              + "; only FLOAT32 is supported");
    }
    long expected = 1;
    for (int s : t.getShapeList()) {
      expected *= Integer.toUnsignedLong(s);
    }
    if (t.getData().size() != expected * 4) {
      throw new CorruptFileException(
          file,
          "its "
              + what
              + " tensor of shape "
              + t.getShapeList()
              + " holds "
              + t.getData().size()
              + " bytes, expected "
              + expected * 4);
    }
    float[] out = new float[(int) expected];
    t.getData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
    return out;
  }
}
