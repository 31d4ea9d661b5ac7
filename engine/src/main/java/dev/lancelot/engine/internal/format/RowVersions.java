package dev.lancelot.engine.internal.format;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.internal.format.proto.RowIdProtos;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.ExternalFile;
import java.util.Arrays;
import java.util.function.Function;

/**
 * A fragment's row version sequences (its {@code created_at} and {@code last_updated_at} versions,
 * one per physical row), which Lance writes beside the row ids of datasets with stable row ids:
 * decoded to one version per row, and encoded back as runs of equal versions over row offsets.
 */
public final class RowVersions {
  private RowVersions() {}

  /** Which of a fragment's two sequences. */
  public enum Kind {
    CREATED,
    LAST_UPDATED
  }

  /**
   * The versions of {@code kind} of every physical row of {@code f}, or null when the fragment
   * carries none. A sequence stored outside the manifest (an {@code ExternalFile}: a byte range of
   * a file under the dataset root) is read with {@code external}.
   */
  public static long[] of(
      DataFragment f, Kind kind, String where, Function<ExternalFile, byte[]> external) {
    ByteString bytes;
    if (kind == Kind.CREATED) {
      bytes =
          f.hasExternalCreatedAtVersions()
              ? ByteString.copyFrom(external.apply(f.getExternalCreatedAtVersions()))
              : f.hasInlineCreatedAtVersions() ? f.getInlineCreatedAtVersions() : null;
    } else {
      bytes =
          f.hasExternalLastUpdatedAtVersions()
              ? ByteString.copyFrom(external.apply(f.getExternalLastUpdatedAtVersions()))
              : f.hasInlineLastUpdatedAtVersions() ? f.getInlineLastUpdatedAtVersions() : null;
    }
    if (bytes == null) {
      return null;
    }
    long[] out = parse(bytes.toByteArray(), where + ", fragment " + f.getId());
    if (out.length != f.getPhysicalRows()) {
      throw new CorruptFileException(
          where,
          "fragment "
              + f.getId()
              + " has "
              + f.getPhysicalRows()
              + " rows but its row version sequence covers "
              + out.length);
    }
    return out;
  }

  /** Decodes a version sequence to one version per row. */
  public static long[] parse(byte[] bytes, String where) {
    RowIdProtos.RowDatasetVersionSequence pb;
    try {
      pb = RowIdProtos.RowDatasetVersionSequence.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(where, "the row version sequence is not valid protobuf", e);
    }
    long total = 0;
    long[] lengths = new long[pb.getRunsCount()];
    for (int i = 0; i < lengths.length; i++) {
      byte[] span =
          RowIdProtos.RowIdSequence.newBuilder()
              .addSegments(pb.getRuns(i).getSpan())
              .build()
              .toByteArray();
      lengths[i] = RowIdSequence.parse(span, where).length();
      total += lengths[i];
    }
    long[] out = new long[Math.toIntExact(total)];
    int k = 0;
    for (int i = 0; i < lengths.length; i++) {
      Arrays.fill(out, k, k + (int) lengths[i], pb.getRuns(i).getVersion());
      k += (int) lengths[i];
    }
    return out;
  }

  /** Encodes one version per row as runs of equal versions, each spanning a range of offsets. */
  public static ByteString encode(long[] versions) {
    RowIdProtos.RowDatasetVersionSequence.Builder b =
        RowIdProtos.RowDatasetVersionSequence.newBuilder();
    int start = 0;
    for (int i = 1; i <= versions.length; i++) {
      if (i == versions.length || versions[i] != versions[start]) {
        b.addRuns(
            RowIdProtos.RowDatasetVersionRun.newBuilder()
                .setSpan(
                    RowIdProtos.U64Segment.newBuilder()
                        .setRange(
                            RowIdProtos.U64Segment.Range.newBuilder().setStart(start).setEnd(i)))
                .setVersion(versions[start]));
        start = i;
      }
    }
    return b.build().toByteString();
  }

  /** A sequence giving all {@code rows} rows one version. */
  public static ByteString uniform(long rows, long version) {
    long[] v = new long[Math.toIntExact(rows)];
    Arrays.fill(v, version);
    return encode(v);
  }
}
