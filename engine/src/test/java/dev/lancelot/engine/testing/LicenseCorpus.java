package dev.lancelot.engine.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.WriteParams;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.InvertedIndexParams;
import org.lance.operation.CreateIndex;

/**
 * A real text corpus for full-text search tests: the paragraphs of Debian's common licenses ({@code
 * /usr/share/common-licenses}, files in name order), written with lance-core as rows {@code (id
 * int64, text utf8)}, and indexed by lance-core's distributed build into one inverted index segment
 * with a partition per fragment.
 */
public final class LicenseCorpus {
  public static final Path CORPUS = Path.of("/usr/share/common-licenses");

  private LicenseCorpus() {}

  /** Paragraphs (blank-line separated) of every file of the corpus. */
  public static List<String> paragraphs() {
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(CORPUS)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        for (String para : Files.readString(f, StandardCharsets.UTF_8).split("\\n\\s*\\n")) {
          if (!para.isBlank()) {
            out.add(para.strip());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Writes paragraphs {@code first..first+count} as rows with lance-core. */
  public static void write(
      BufferAllocator allocator,
      Path dir,
      List<String> docs,
      int first,
      int count,
      WriteParams.WriteMode mode,
      int maxRowsPerFile) {
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("text", FieldType.nullable(new ArrowType.Utf8()), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      BigIntVector ids = (BigIntVector) root.getVector(0);
      VarCharVector text = (VarCharVector) root.getVector(1);
      for (int i = 0; i < count; i++) {
        ids.setSafe(i, first + i);
        text.setSafe(i, docs.get(first + i).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(count);
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(root)))
          .uri(dir.toString())
          .mode(mode)
          .maxRowsPerFile(maxRowsPerFile)
          .execute()
          .close();
    }
  }

  /** The tokenizer settings lancelot reproduces ({@code simple}, lower case, ASCII folding). */
  public static IndexParams simpleParams() {
    return params(false, false);
  }

  /**
   * Lance's default tokenizer settings ({@code simple}, English, lower case, stemming, stop-word
   * removal, ASCII folding, tokens under 40 bytes), spelled out as lance-core's builder needs.
   */
  public static IndexParams defaultParams() {
    return params(true, true);
  }

  /** The {@code simple} settings with stemming and stop-word removal as given. */
  public static IndexParams params(boolean stem, boolean removeStopWords) {
    return IndexParams.builder()
        .setScalarIndexParams(
            InvertedIndexParams.builder()
                .baseTokenizer("simple")
                .language("English")
                .withPosition(false)
                .maxTokenLength(40)
                .lowerCase(true)
                .stem(stem)
                .removeStopWords(removeStopWords)
                .asciiFolding(true)
                .build())
        .build();
  }

  /**
   * Indexes column {@code text} of every fragment with lance-core's distributed build — one piece
   * per fragment under one uuid, merged into one segment with a partition per piece — and commits
   * it as index {@code name}.
   */
  public static void buildPartitionedIndex(BufferAllocator allocator, Path dir, String name) {
    buildPartitionedIndex(allocator, dir, name, simpleParams());
  }

  /**
   * {@link #buildPartitionedIndex(BufferAllocator, Path, String)} with tokenizer {@code params}.
   */
  public static void buildPartitionedIndex(
      BufferAllocator allocator, Path dir, String name, IndexParams params) {
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      UUID uuid = UUID.randomUUID();
      List<Integer> fragments = ds.getFragments().stream().map(f -> f.getId()).toList();
      org.lance.index.Index piece = null;
      for (int fragment : fragments) {
        piece =
            ds.createIndex(
                IndexOptions.builder(List.of("text"), IndexType.INVERTED, params)
                    .withIndexName(name)
                    .withIndexUUID(uuid.toString())
                    .withFragmentIds(List.of(fragment))
                    .build());
      }
      ds.mergeIndexMetadata(uuid.toString(), IndexType.INVERTED, Optional.empty());
      int field =
          ds.getLanceSchema().fields().stream()
              .filter(f -> f.getName().equals("text"))
              .findFirst()
              .orElseThrow()
              .getId();
      org.lance.index.Index index =
          org.lance.index.Index.builder()
              .uuid(uuid)
              .name(name)
              .fields(List.of(field))
              .datasetVersion(ds.version())
              .indexVersion(piece.indexVersion())
              .indexDetails(piece.indexDetails().orElseThrow())
              .fragments(fragments)
              .build();
      try (org.lance.SourcedTransaction tx =
          ds.newTransactionBuilder()
              .operation(CreateIndex.builder().withNewIndices(List.of(index)).build())
              .build()) {
        tx.commit().close();
      }
    }
  }
}
