package dev.lancelot.engine.internal.index.vector.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancelot.engine.internal.format.CorruptFileException;

/**
 * The quantizer description in {@code auxiliary.idx}'s {@code storage_metadata} (a JSON array
 * holding one JSON-encoded string, the same for every partition). Shapes, as lance-core 7.0.0
 * writes them:
 *
 * <ul>
 *   <li>flat: {@code {"dim":16}}
 *   <li>SQ: {@code {"dim":16,"num_bits":8,"bounds":{"start":-3.83,"end":3.96}}}
 *   <li>PQ: {@code {"codebook_position":2,"nbits":8,"num_sub_vectors":4,"dimension":16,
 *       "codebook_tensor":[],"transposed":true}}; {@code codebook_position} is the global buffer
 *       holding the codebook {@code Tensor}; {@code codebook_tensor} is a legacy inline copy,
 *       always empty in V3 files.
 *   <li>RQ: {@code {"rotate_mat_position":null,"fast_rotation_signs":[241,…],
 *       "rotation_type":"fast","code_dim":16,"num_bits":1,"packed":true}}; no {@code
 *       query_estimator} means the residual-query estimator (the only one lance-core 7.0.0 writes).
 * </ul>
 */
public sealed interface StorageMetadata {
  ObjectMapper JSON = new ObjectMapper();

  /** The JSON object, as one element of the {@code storage_metadata} array. */
  String toJson();

  int dimension();

  record Flat(int dimension) implements StorageMetadata {
    @Override
    public String toJson() {
      return JSON.createObjectNode().put("dim", dimension).toString();
    }
  }

  record Sq(int dimension, int numBits, double start, double end) implements StorageMetadata {
    @Override
    public String toJson() {
      ObjectNode n = JSON.createObjectNode().put("dim", dimension).put("num_bits", numBits);
      n.putObject("bounds").put("start", start).put("end", end);
      return n.toString();
    }
  }

  record Pq(int codebookPosition, int numBits, int numSubVectors, int dimension, boolean transposed)
      implements StorageMetadata {
    @Override
    public String toJson() {
      ObjectNode n =
          JSON.createObjectNode()
              .put("codebook_position", codebookPosition)
              .put("nbits", numBits)
              .put("num_sub_vectors", numSubVectors)
              .put("dimension", dimension);
      n.putArray("codebook_tensor");
      n.put("transposed", transposed);
      return n.toString();
    }
  }

  /**
   * RaBitQ: the rotation ({@code "fast"} with its sign bytes, or {@code "matrix"} in a global
   * buffer), the code dimension, bits per dimension, whether codes are packed, and the query
   * estimator ({@code "residual_query"} when absent).
   */
  record Rq(
      String rotationType,
      byte[] fastRotationSigns,
      int codeDim,
      int numBits,
      boolean packed,
      String queryEstimator)
      implements StorageMetadata {
    @Override
    public int dimension() {
      return codeDim / numBits;
    }

    @Override
    public String toJson() {
      ObjectNode n = JSON.createObjectNode().putNull("rotate_mat_position");
      var signs = n.putArray("fast_rotation_signs");
      for (byte b : fastRotationSigns) {
        signs.add(b & 0xFF);
      }
      n.put("rotation_type", rotationType)
          .put("code_dim", codeDim)
          .put("num_bits", numBits)
          .put("packed", packed);
      return n.toString();
    }
  }

  /** The {@code storage_metadata} value: a JSON array of one JSON-encoded string. */
  static String encodeArray(StorageMetadata m) {
    return JSON.createArrayNode().add(m.toJson()).toString();
  }

  /**
   * Parses {@code storage_metadata} for a storage of {@code codeColumn}'s kind; {@code file} names
   * the file in errors.
   */
  static StorageMetadata parse(String file, String value, String codeColumn) {
    JsonNode entry;
    try {
      JsonNode array = JSON.readTree(value);
      if (!array.isArray() || array.isEmpty() || !array.get(0).isTextual()) {
        throw new CorruptFileException(
            file,
            "its "
                + IndexFileLayout.STORAGE_METADATA_KEY
                + " is not a JSON array of one JSON string: "
                + abbreviate(value));
      }
      entry = JSON.readTree(array.get(0).asText());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new CorruptFileException(
          file,
          "its "
              + IndexFileLayout.STORAGE_METADATA_KEY
              + " is not valid JSON: "
              + abbreviate(value),
          e);
    }
    switch (codeColumn) {
      case IndexFileLayout.FLAT_COLUMN:
        return new Flat(positiveInt(file, entry, "dim"));
      case IndexFileLayout.SQ_CODE_COLUMN:
        {
          JsonNode bounds = entry.get("bounds");
          if (bounds == null
              || !bounds.path("start").isNumber()
              || !bounds.path("end").isNumber()) {
            throw new CorruptFileException(
                file, "its SQ storage metadata has no numeric bounds {start, end}: " + entry);
          }
          return new Sq(
              positiveInt(file, entry, "dim"),
              positiveInt(file, entry, "num_bits"),
              bounds.get("start").asDouble(),
              bounds.get("end").asDouble());
        }
      case IndexFileLayout.PQ_CODE_COLUMN:
        return new Pq(
            positiveInt(file, entry, "codebook_position"),
            positiveInt(file, entry, "nbits"),
            positiveInt(file, entry, "num_sub_vectors"),
            positiveInt(file, entry, "dimension"),
            entry.path("transposed").asBoolean(false));
      case IndexFileLayout.RQ_CODE_COLUMN:
        return rq(file, entry);
      default:
        throw new IllegalArgumentException("not a code column: " + codeColumn);
    }
  }

  private static Rq rq(String file, JsonNode entry) {
    JsonNode signs = entry.get("fast_rotation_signs");
    byte[] bytes = new byte[0];
    if (signs != null && !signs.isNull()) {
      if (!signs.isArray()) {
        throw new CorruptFileException(
            file, "its RQ fast_rotation_signs is not an array of bytes: " + entry);
      }
      bytes = new byte[signs.size()];
      for (int i = 0; i < bytes.length; i++) {
        JsonNode b = signs.get(i);
        if (!b.canConvertToInt() || b.asInt() < 0 || b.asInt() > 255) {
          throw new CorruptFileException(
              file, "its RQ fast_rotation_signs holds " + b + ", not a byte: " + entry);
        }
        bytes[i] = (byte) b.asInt();
      }
    }
    return new Rq(
        entry.path("rotation_type").asText("matrix"),
        bytes,
        positiveInt(file, entry, "code_dim"),
        positiveInt(file, entry, "num_bits"),
        entry.path("packed").asBoolean(false),
        entry.path("query_estimator").asText("residual_query"));
  }

  private static int positiveInt(String file, JsonNode node, String key) {
    JsonNode v = node.get(key);
    if (v == null || !v.canConvertToInt() || v.asInt() <= 0) {
      throw new CorruptFileException(
          file, "its storage metadata has no positive integer \"" + key + "\": " + node);
    }
    return v.asInt();
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }
}
