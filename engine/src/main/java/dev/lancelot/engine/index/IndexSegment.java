package dev.lancelot.engine.index;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.format.CorruptFileException;
import dev.lancelot.engine.internal.format.FragmentBitmaps;
import dev.lancelot.engine.internal.format.IndexUuids;
import dev.lancelot.engine.internal.format.proto.IndexProtos.VectorIndexDetails;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.vector.DistanceMetric;
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
public final class IndexSegment {
  public static final String VECTOR_DETAILS_TYPE = "/lance.index.pb.VectorIndexDetails";
  public static final String BTREE_DETAILS_TYPE = "/lance.table.BTreeIndexDetails";

  private final IndexMetadata proto;
  private final UUID uuid;
  private final RoaringBitmap fragments;
  private final String listedIn;

  private IndexSegment(IndexMetadata proto, String listedIn) {
    this.proto = proto;
    this.uuid = IndexUuids.uuidOf(proto.getUuid().getUuid());
    this.fragments = FragmentBitmaps.of(proto);
    this.listedIn = listedIn;
  }

  /** A segment not (yet) listed by a manifest: one being built. */
  static IndexSegment of(IndexMetadata proto) {
    return new IndexSegment(proto, null);
  }

  /**
   * A segment listed by the manifest at {@code manifestLocation}; errors about the segment's
   * metadata name that manifest, where the metadata lives.
   */
  static IndexSegment of(IndexMetadata proto, String manifestLocation) {
    try {
      IndexSegment s = new IndexSegment(proto, manifestLocation);
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

  /** The manifest entry. */
  IndexMetadata proto() {
    return proto;
  }

  /** The segment's id: its files are under {@link #directory()}. */
  public UUID uuid() {
    return uuid;
  }

  /** Ids of the fragments the segment covers (its {@code fragment_bitmap}); do not modify. */
  public RoaringBitmap fragments() {
    return fragments;
  }

  /** The manifest listing this segment, or null for a segment being built. */
  public String listedIn() {
    return listedIn;
  }

  /**
   * The type URL of the index details in the manifest entry, e.g. {@value #VECTOR_DETAILS_TYPE};
   * what tells index kinds apart.
   */
  public String detailsType() {
    return proto.getIndexDetails().getTypeUrl();
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

  /**
   * The segment's files as its manifest entry lists them, relative to {@link #directory()}; empty
   * when the writer did not list them (older Lance versions).
   */
  public List<String> files() {
    return proto.getFilesList().stream().map(f -> f.getPath()).toList();
  }

  public IndexType type() {
    String url = detailsType();
    if (url.endsWith(BTREE_DETAILS_TYPE)) {
      return IndexType.BTREE;
    }
    if (!url.endsWith(VECTOR_DETAILS_TYPE)) {
      return scalarType(url);
    }
    VectorIndexDetails v = vectorDetails().orElseThrow();
    if (v.hasRq()) {
      return v.hasHnsw() ? IndexType.OTHER : IndexType.IVF_RQ;
    }
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

  /**
   * The kind of a scalar index lancelot lists but does not use yet, by the message name of its
   * details (Lance 7 writes {@code /lance.table.BitmapIndexDetails}, {@code
   * /lance.index.pb.BloomFilterIndexDetails}, …); {@link IndexType#OTHER} for any other.
   */
  private static IndexType scalarType(String url) {
    String message = url.substring(url.lastIndexOf('.') + 1);
    return switch (message) {
      case "BitmapIndexDetails" -> IndexType.BITMAP;
      case "LabelListIndexDetails" -> IndexType.LABEL_LIST;
      case "NGramIndexDetails" -> IndexType.NGRAM;
      case "ZoneMapIndexDetails" -> IndexType.ZONEMAP;
      case "BloomFilterIndexDetails" -> IndexType.BLOOM_FILTER;
      case "InvertedIndexDetails" -> IndexType.INVERTED;
      default -> IndexType.OTHER;
    };
  }

  Optional<VectorIndexDetails> vectorDetails() {
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

  @Override
  public boolean equals(Object o) {
    return o instanceof IndexSegment other
        && proto.equals(other.proto)
        && java.util.Objects.equals(listedIn, other.listedIn);
  }

  @Override
  public int hashCode() {
    return proto.hashCode() * 31 + java.util.Objects.hashCode(listedIn);
  }

  @Override
  public String toString() {
    return "IndexSegment{name=" + name() + ", uuid=" + uuid + ", fragments=" + fragments + "}";
  }
}
