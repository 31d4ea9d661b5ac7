package dev.lancelot.engine.internal.index.vector.build;

import com.google.protobuf.Any;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.internal.format.proto.IndexProtos.VectorIndexDetails;
import dev.lancelot.engine.internal.format.proto.IndexProtos.VectorMetricType;
import dev.lancelot.engine.internal.index.IndexInternals;
import java.util.Map;

/**
 * The manifest's {@code index_details} of a vector segment ({@code
 * /lance.index.pb.VectorIndexDetails}), filled as lance-core 7.0.0 fills it: {@code metric_type};
 * {@code flat {}} for IVF_FLAT; {@code pq {num_bits, num_sub_vectors}}; {@code sq {num_bits}};
 * {@code rq {num_bits}} (rotation {@code FAST}, the default value) for IVF_RQ; {@code hnsw {m,
 * ef_construction, max_level}} plus the storage's message for IVF_HNSW_*; {@code runtime_hints}
 * with the build parameters ({@code lance.ivf.max_iters}, {@code lance.ivf.sample_rate}, {@code
 * lance.pq.*}, {@code lance.sq.sample_rate}) and the seed ({@code lancelot.seed}) so a retrain can
 * repeat the build.
 */
public final class IndexDetails {
  public static final String HINT_IVF_MAX_ITERS = "lance.ivf.max_iters";
  public static final String HINT_IVF_SAMPLE_RATE = "lance.ivf.sample_rate";
  public static final String HINT_PQ_MAX_ITERS = "lance.pq.max_iters";
  public static final String HINT_PQ_SAMPLE_RATE = "lance.pq.sample_rate";
  public static final String HINT_SQ_SAMPLE_RATE = "lance.sq.sample_rate";
  public static final String HINT_SEED = "lancelot.seed";

  private IndexDetails() {}

  public static Any of(VectorIndexSpec spec) {
    VectorIndexDetails.Builder b =
        VectorIndexDetails.newBuilder()
            .setMetricType(VectorMetricType.forNumber(spec.metric().protoValue()));
    if (spec.type().isHnsw()) {
      b.setHnsw(
          VectorIndexDetails.HnswParams.newBuilder()
              .setM(spec.m())
              .setEfConstruction(spec.efConstruction())
              .setMaxLevel(spec.maxLevel()));
    }
    if (spec.usesPq()) {
      b.setPq(
          VectorIndexDetails.PqParams.newBuilder()
              .setNumBits(spec.numBits())
              .setNumSubVectors(spec.numSubVectors()));
      b.putRuntimeHints(HINT_PQ_MAX_ITERS, Integer.toString(spec.maxIters()));
      b.putRuntimeHints(HINT_PQ_SAMPLE_RATE, Integer.toString(spec.sampleRate()));
    } else if (spec.usesSq()) {
      b.setSq(VectorIndexDetails.SqParams.newBuilder().setNumBits(spec.numBits()));
      b.putRuntimeHints(HINT_SQ_SAMPLE_RATE, Integer.toString(spec.sampleRate()));
    } else if (spec.usesRq()) {
      b.setRq(
          VectorIndexDetails.RabitQParams.newBuilder()
              .setNumBits(spec.numBits())
              .setRotationType(VectorIndexDetails.RabitQParams.RotationType.FAST));
    } else {
      b.setFlat(VectorIndexDetails.FlatParams.getDefaultInstance());
    }
    b.putRuntimeHints(HINT_IVF_MAX_ITERS, Integer.toString(spec.maxIters()));
    b.putRuntimeHints(HINT_IVF_SAMPLE_RATE, Integer.toString(spec.sampleRate()));
    b.putRuntimeHints(HINT_SEED, Long.toString(spec.seed()));
    return Any.newBuilder()
        .setTypeUrl(IndexSegment.VECTOR_DETAILS_TYPE)
        .setValue(b.build().toByteString())
        .build();
  }

  /**
   * The spec a segment was built with, as far as its details tell (partition count excluded: that
   * is in the index files). Missing hints take Lance's defaults.
   */
  public static VectorIndexSpec specOf(IndexSegment segment) {
    VectorIndexDetails d =
        IndexInternals.vectorDetails(segment)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "segment " + segment.uuid() + " is not a vector index"));
    VectorIndexSpec spec =
        VectorIndexSpec.of(segment.type(), segment.metric().orElseThrow()).withName(segment.name());
    Map<String, String> hints = d.getRuntimeHintsMap();
    if (d.hasPq()) {
      spec = spec.withNumSubVectors(d.getPq().getNumSubVectors());
    }
    if (d.hasRq()) {
      spec = spec.withNumBits(d.getRq().getNumBits());
    }
    if (d.hasHnsw()) {
      spec =
          spec.withHnsw(
              d.getHnsw().getM(), d.getHnsw().getEfConstruction(), d.getHnsw().getMaxLevel());
    }
    spec =
        spec.withMaxIters(intHint(hints, HINT_IVF_MAX_ITERS, VectorIndexSpec.DEFAULT_MAX_ITERS))
            .withSampleRate(
                intHint(hints, HINT_IVF_SAMPLE_RATE, VectorIndexSpec.DEFAULT_SAMPLE_RATE));
    String seed = hints.get(HINT_SEED);
    if (seed != null) {
      try {
        spec = spec.withSeed(Long.parseLong(seed));
      } catch (NumberFormatException ignored) {
        // A foreign hint; keep the default seed.
      }
    }
    return spec;
  }

  private static int intHint(Map<String, String> hints, String key, int fallback) {
    try {
      String v = hints.get(key);
      return v == null ? fallback : Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
