package dev.lancelot.engine.internal.format;

import com.google.protobuf.ByteString;
import dev.lancelot.engine.internal.format.proto.FileProtos;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.LogicalTypes;
import dev.lancelot.engine.schema.SchemaException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link LanceSchema} to and from the messages that hold it in manifests and data file
 * descriptors: the flattened, parents-before-children list of {@code lance.file.Field} plus the
 * schema metadata map.
 */
public final class SchemaProtos {
  private SchemaProtos() {}

  /**
   * Rebuilds the tree from the flattened proto list of a manifest or file descriptor. Parents must
   * come before their children; the order of children follows the list.
   */
  public static LanceSchema fromProtos(
      List<FileProtos.Field> protos, Map<String, ByteString> metadata) {
    Map<Integer, List<FileProtos.Field>> childrenOf = new LinkedHashMap<>();
    List<FileProtos.Field> top = new ArrayList<>();
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (FileProtos.Field f : protos) {
      if (f.getParentId() == -1) {
        top.add(f);
      } else {
        if (!seen.contains(f.getParentId())) {
          throw new SchemaException(
              "Cannot read schema: field \""
                  + f.getName()
                  + "\" (id "
                  + f.getId()
                  + ") refers to parent id "
                  + f.getParentId()
                  + " which does not precede it. The manifest or data file is corrupt.");
        }
        childrenOf.computeIfAbsent(f.getParentId(), k -> new ArrayList<>()).add(f);
      }
      seen.add(f.getId());
    }
    List<LanceField> fields = new ArrayList<>();
    for (FileProtos.Field f : top) {
      fields.add(fromProto(f, childrenOf));
    }
    Map<String, String> meta = new LinkedHashMap<>();
    if (metadata != null) {
      metadata.forEach((k, v) -> meta.put(k, v.toStringUtf8()));
    }
    return LanceSchema.of(fields, meta);
  }

  /** Reads the schema of a {@code lance.file.Schema} message. */
  public static LanceSchema fromProto(FileProtos.Schema schema) {
    return fromProtos(schema.getFieldsList(), schema.getMetadataMap());
  }

  private static LanceField fromProto(
      FileProtos.Field f, Map<Integer, List<FileProtos.Field>> childrenOf) {
    List<LanceField> children = new ArrayList<>();
    for (FileProtos.Field c : childrenOf.getOrDefault(f.getId(), List.of())) {
      children.add(fromProto(c, childrenOf));
    }
    Map<String, String> meta = new LinkedHashMap<>();
    f.getMetadataMap().forEach((k, v) -> meta.put(k, v.toStringUtf8()));
    if (!f.getExtensionName().isEmpty()) {
      meta.put(LogicalTypes.ARROW_EXT_NAME, f.getExtensionName());
    }
    return new LanceField(
        f.getId(),
        f.getParentId(),
        f.getName(),
        f.getLogicalType(),
        f.getNullable(),
        meta,
        children,
        f.getEncoding(),
        f.getUnenforcedPrimaryKey());
  }

  /** The flattened proto list (pre-order, parents first), as Lance writes it. */
  public static List<FileProtos.Field> toProtos(LanceSchema schema) {
    List<FileProtos.Field> out = new ArrayList<>();
    for (LanceField top : schema.fields()) {
      for (LanceField f : top.preOrder()) {
        FileProtos.Field.Builder b =
            FileProtos.Field.newBuilder()
                .setId(f.id())
                .setParentId(f.parentId())
                .setName(f.name())
                .setLogicalType(f.logicalType())
                .setNullable(f.nullable())
                .setEncoding(f.legacyEncoding())
                .setUnenforcedPrimaryKey(f.unenforcedPrimaryKey());
        f.metadata()
            .forEach((k, v) -> b.putMetadata(k, ByteString.copyFrom(v, StandardCharsets.UTF_8)));
        String ext = f.extensionName();
        if (ext != null) {
          b.setExtensionName(ext);
        }
        out.add(b.build());
      }
    }
    return out;
  }

  /** Schema metadata as the proto map (values as UTF-8 bytes). */
  public static Map<String, ByteString> metadataProto(LanceSchema schema) {
    Map<String, ByteString> out = new LinkedHashMap<>();
    schema.metadata().forEach((k, v) -> out.put(k, ByteString.copyFrom(v, StandardCharsets.UTF_8)));
    return out;
  }

  /** This schema as a {@code lance.file.Schema} message. */
  public static FileProtos.Schema toProto(LanceSchema schema) {
    return FileProtos.Schema.newBuilder()
        .addAllFields(toProtos(schema))
        .putAllMetadata(metadataProto(schema))
        .build();
  }
}
