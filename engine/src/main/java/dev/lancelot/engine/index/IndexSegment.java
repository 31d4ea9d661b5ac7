package dev.lancelot.engine.index;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.format.CorruptFileException;
import dev.lancelot.engine.internal.format.FragmentBitmaps;
import dev.lancelot.engine.internal.format.proto.IndexProtos.VectorIndexDetails;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.roaringbitmap.RoaringBitmap;

/**
 * One index segment as the manifest records it ({@code IndexMetadata}): segments sharing a name are
 * deltas of one logical index. The fragments a segment covers are its {@code fragment_bitmap};
 * fragments of the dataset outside every segment of a name are unindexed for that index.
 */
public record IndexSegment(
    IndexMetadata proto, UUID uuid, RoaringBitmap fragments, String listedIn) {
  public static final String VECTOR_DETAILS_TYPE = "/lance.index.pb.VectorIndexDetails";
  public static final String BTREE_DETAILS_TYPE = "/lance.table.BTreeIndexDetails";

  /** A segment not (yet) listed by a manifest: one being built. */
  public static IndexSegment of(IndexMetadata proto) {
    return new IndexSegment(
        proto, uuidOf(proto.getUuid().getUuid()), FragmentBitmaps.of(proto), null);
  }

  /**
   * A segment listed by the manifest at {@code manifestLocation}; errors about the segment's
   * metadata name that manifest, where the metadata lives.
   */
  public static IndexSegment of(IndexMetadata proto, String manifestLocation) {
    try {
      IndexSegment s =
          new IndexSegment(
              proto,
              uuidOf(proto.getUuid().getUuid()),
              FragmentBitmaps.of(proto),
              manifestLocation);
      s.vectorDetails(); // metadata damage shows here, not at the first search
      return s;
    } catch (LancelotException e) {
      throw new CorruptFileException(
          manifestLocation, "index " + proto.getName() + " of this manifest: " + e.getMessage(), e);
    }
  }

  /** {@code e} with the manifest listing this segment named, when there is one. */
  public LancelotException inContext(LancelotException e) {
    if (listedIn == null || String.valueOf(e.getMessage()).contains(listedIn)) {
      return e;
    }
    return e instanceof dev.lancelot.engine.index.scalar.ScalarIndexException
        ? new dev.lancelot.engine.index.scalar.ScalarIndexException(
            e.getMessage() + " (index listed in " + listedIn + ")", e)
        : new LancelotException(e.getMessage() + " (index listed in " + listedIn + ")", e);
  }

  public String name() {
    return proto.getName();
  }

  /** Field ids the index is built on (one, for the indexes this project handles). */
  public List<Integer> fieldIds() {
    return proto.getFieldsList();
  }

  public long datasetVersion() {
    return proto.getDatasetVersion();
  }

  public Instant createdAt() {
    return Instant.ofEpochMilli(proto.getCreatedAt());
  }

  /** Directory of the segment's files, relative to the dataset root: {@code _indices/<uuid>}. */
  public String directory() {
    return "_indices/" + uuid;
  }

  public IndexType type() {
    Any details = proto.getIndexDetails();
    String url = details.getTypeUrl();
    if (url.endsWith(BTREE_DETAILS_TYPE)) {
      return IndexType.BTREE;
    }
    if (!url.endsWith(VECTOR_DETAILS_TYPE)) {
      return IndexType.OTHER;
    }
    VectorIndexDetails v = vectorDetails().orElseThrow();
    if (v.hasHnsw()) {
      return v.hasPq()
          ? IndexType.IVF_HNSW_PQ
          : v.hasSq() ? IndexType.IVF_HNSW_SQ : IndexType.IVF_HNSW_FLAT;
    }
    if (v.hasPq()) {
      return IndexType.IVF_PQ;
    }
    if (v.hasSq()) {
      return IndexType.IVF_SQ;
    }
    if (v.hasFlat()) {
      return IndexType.IVF_FLAT;
    }
    return IndexType.OTHER;
  }

  public Optional<VectorIndexDetails> vectorDetails() {
    Any details = proto.getIndexDetails();
    if (!details.getTypeUrl().endsWith(VECTOR_DETAILS_TYPE)) {
      return Optional.empty();
    }
    try {
      return Optional.of(VectorIndexDetails.parseFrom(details.getValue()));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(
          "index " + name() + " (" + uuid + ")",
          "its vector index details are not a " + "valid protobuf message",
          e);
    }
  }

  /** The metric a vector index was built with (fixed at build time, SPEC Q3). */
  public Optional<DistanceMetric> metric() {
    return vectorDetails().map(d -> DistanceMetric.fromProto(d.getMetricTypeValue()));
  }

  public static UUID uuidOf(ByteString bytes) {
    if (bytes.size() != 16) {
      throw new CorruptFileException(
          "index metadata", "an index uuid has " + bytes.size() + " bytes, expected 16");
    }
    ByteBuffer b = bytes.asReadOnlyByteBuffer();
    return new UUID(b.getLong(), b.getLong());
  }

  public static ByteString uuidBytes(UUID uuid) {
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return ByteString.copyFrom(b.array());
  }
}
