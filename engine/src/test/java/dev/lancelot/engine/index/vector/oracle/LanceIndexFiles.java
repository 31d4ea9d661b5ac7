package dev.lancelot.engine.index.vector.oracle;

import com.google.protobuf.CodedInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Just enough of the Lance file footer and index protos to pull the global buffers (IVF proto, PQ
 * codebook Tensor) out of index files written by lance-core in tests. Footer (last 40 bytes):
 * {@code u64 column_meta_start, u64 cmo_pos, u64 gbo_pos, u32 num_global_buffers, u32 num_columns,
 * u16 major, u16 minor, "LANC"}; at {@code gbo_pos} one {@code (u64 position, u64 size)} per global
 * buffer.
 */
final class LanceIndexFiles {
  private LanceIndexFiles() {}

  static Path indexDir(Path dataset) throws IOException {
    try (Stream<Path> s = Files.list(dataset.resolve("_indices"))) {
      return s.findFirst().orElseThrow();
    }
  }

  static ByteBuffer globalBuffer(Path file, int index) throws IOException {
    ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    int end = all.capacity();
    if (all.getInt(end - 4) != 0x434E414C) { // "LANC"
      throw new IllegalStateException("not a Lance file: " + file);
    }
    long gboPos = all.getLong(end - 40 + 16);
    int numBuffers = all.getInt(end - 40 + 24);
    if (index >= numBuffers) {
      throw new IllegalStateException("no global buffer " + index + " in " + file);
    }
    long pos = all.getLong((int) gboPos + 16 * index);
    long size = all.getLong((int) gboPos + 16 * index + 8);
    return ByteBuffer.wrap(all.array(), (int) pos, (int) size)
        .slice()
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  /** {@code lance.index.pb.Tensor}: 1 data_type (2 = float32), 2 shape, 3 data (little-endian). */
  record Tensor(int dataType, List<Integer> shape, float[] values) {}

  static Tensor tensor(ByteBuffer bytes) throws IOException {
    return tensor(CodedInputStream.newInstance(bytes));
  }

  private static Tensor tensor(CodedInputStream in) throws IOException {
    int type = 0;
    List<Integer> shape = new ArrayList<>();
    float[] values = new float[0];
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      switch (tag >>> 3) {
        case 1 -> type = in.readEnum();
        case 2 -> {
          if ((tag & 7) == 2) {
            int limit = in.pushLimit(in.readRawVarint32());
            while (in.getBytesUntilLimit() > 0) {
              shape.add(in.readUInt32());
            }
            in.popLimit(limit);
          } else {
            shape.add(in.readUInt32());
          }
        }
        case 3 -> {
          ByteBuffer data = in.readBytes().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
          values = new float[data.remaining() / 4];
          data.asFloatBuffer().get(values);
        }
        default -> in.skipField(tag);
      }
    }
    return new Tensor(type, shape, values);
  }

  /** {@code lance.index.pb.IVF}: 2 offsets, 3 lengths, 4 centroids_tensor, 5 loss. */
  record Ivf(List<Long> offsets, List<Integer> lengths, Tensor centroids) {}

  static Ivf ivf(ByteBuffer bytes) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    List<Long> offsets = new ArrayList<>();
    List<Integer> lengths = new ArrayList<>();
    Tensor centroids = null;
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      int field = tag >>> 3;
      if ((field == 2 || field == 3) && (tag & 7) == 2) {
        int limit = in.pushLimit(in.readRawVarint32());
        while (in.getBytesUntilLimit() > 0) {
          if (field == 2) {
            offsets.add(in.readUInt64());
          } else {
            lengths.add(in.readUInt32());
          }
        }
        in.popLimit(limit);
      } else if (field == 2) {
        offsets.add(in.readUInt64());
      } else if (field == 3) {
        lengths.add(in.readUInt32());
      } else if (field == 4) {
        int limit = in.pushLimit(in.readRawVarint32());
        centroids = tensor(in);
        in.popLimit(limit);
      } else {
        in.skipField(tag);
      }
    }
    return new Ivf(offsets, lengths, centroids);
  }
}
