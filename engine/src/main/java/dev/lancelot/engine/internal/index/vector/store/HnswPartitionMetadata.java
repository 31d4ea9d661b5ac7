package dev.lancelot.engine.internal.index.vector.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancelot.engine.internal.format.CorruptFileException;
import java.util.ArrayList;
import java.util.List;

/**
 * One partition's entry of {@code lance:hnsw} in an HNSW {@code index.idx}: a JSON array holding,
 * per partition, a JSON-encoded string (the empty string for an empty partition): {@code
 * {"entry_point":0,"params":{"max_level":7,"m":20,"ef_construction":150,
 * "prefetch_distance":2},"level_offsets":[0,371,410,415,415]}}. {@code level_offsets} has {@code
 * max_level + 1} entries: where each level's rows start within the partition, then the end. Lance 7
 * itself writes offsets one short per level above 0 (see {@code HnswGraph}); files written here
 * carry the exact offsets, which Lance's loader slices correctly.
 */
public record HnswPartitionMetadata(
    int entryPoint,
    int maxLevel,
    int m,
    int efConstruction,
    Integer prefetchDistance,
    int[] levelOffsets) {

  public String toJson() {
    ObjectNode n = StorageMetadata.JSON.createObjectNode().put("entry_point", entryPoint);
    ObjectNode p =
        n.putObject("params")
            .put("max_level", maxLevel)
            .put("m", m)
            .put("ef_construction", efConstruction);
    if (prefetchDistance != null) {
      p.put("prefetch_distance", prefetchDistance);
    }
    ArrayNode offsets = n.putArray("level_offsets");
    for (int o : levelOffsets) {
      offsets.add(o);
    }
    return n.toString();
  }

  /**
   * The {@code lance:hnsw} value for these partitions ({@code null} entries = empty partitions).
   */
  public static String encodeArray(List<HnswPartitionMetadata> partitions) {
    ArrayNode a = StorageMetadata.JSON.createArrayNode();
    for (HnswPartitionMetadata m : partitions) {
      a.add(m == null ? "" : m.toJson());
    }
    return a.toString();
  }

  /** Parses {@code lance:hnsw}; empty strings (empty partitions) become {@code null}. */
  public static List<HnswPartitionMetadata> parseArray(
      String file, String value, int numPartitions) {
    List<HnswPartitionMetadata> out = new ArrayList<>();
    try {
      JsonNode array = StorageMetadata.JSON.readTree(value);
      if (!array.isArray() || array.size() != numPartitions) {
        throw new CorruptFileException(
            file,
            "its "
                + IndexFileLayout.HNSW_METADATA_KEY
                + " is not a JSON array of "
                + numPartitions
                + " entries (one per partition)");
      }
      for (JsonNode e : array) {
        if (!e.isTextual()) {
          throw new CorruptFileException(
              file, "an entry of " + IndexFileLayout.HNSW_METADATA_KEY + " is not a string");
        }
        out.add(
            e.asText().isEmpty() ? null : parse(file, StorageMetadata.JSON.readTree(e.asText())));
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new CorruptFileException(
          file, "its " + IndexFileLayout.HNSW_METADATA_KEY + " is not valid JSON", e);
    }
    return out;
  }

  private static HnswPartitionMetadata parse(String file, JsonNode n) {
    JsonNode params = n.path("params");
    JsonNode offsets = n.path("level_offsets");
    if (!n.path("entry_point").canConvertToInt()
        || !params.path("max_level").canConvertToInt()
        || !params.path("m").canConvertToInt()
        || !offsets.isArray()) {
      throw new CorruptFileException(
          file,
          "an HNSW partition entry lacks entry_point, params.max_level, params.m "
              + "or level_offsets: "
              + n);
    }
    int[] levelOffsets = new int[offsets.size()];
    for (int i = 0; i < levelOffsets.length; i++) {
      levelOffsets[i] = offsets.get(i).asInt();
    }
    JsonNode prefetch = params.get("prefetch_distance");
    return new HnswPartitionMetadata(
        n.get("entry_point").asInt(),
        params.get("max_level").asInt(),
        params.get("m").asInt(),
        params.path("ef_construction").asInt(0),
        prefetch == null || prefetch.isNull() ? null : prefetch.asInt(),
        levelOffsets);
  }
}
