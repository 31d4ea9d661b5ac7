package dev.lancelot.engine.internal.index.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceFileException;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;

/**
 * One segment of a Lance inverted index as lance-core 7 writes it under {@code _indices/<uuid>/}:
 * {@code metadata.lance} (schema metadata {@code params}, the tokenizer settings as JSON; {@code
 * partitions}, a JSON list of partition ids; {@code token_set_format}; {@code posting_tail_codec})
 * and per partition {@code p}: {@code part_<p>_tokens.lance} (the token set: one row holding an FST
 * of token to token id, or the older {@code _token}/{@code _token_id} columns), {@code
 * part_<p>_invert.lance} (row = token id: {@code _posting} blocks, {@code _max_score}, {@code
 * _length} = documents holding it, {@code _position} when built with positions) and {@code
 * part_<p>_docs.lance} (row = document id: {@code _rowid}, {@code _num_tokens}). Opening reads the
 * token sets, document tables and list lengths; a search reads the posting lists of its tokens.
 */
public final class InvertedIndexReader {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final BufferAllocator ALLOCATOR = new RootAllocator();

  private record CacheKey(String directory, UUID segment) {}

  private static final MemoryCache.Kind<CacheKey, InvertedIndexReader> SEGMENTS =
      new MemoryCache.Kind<>(CacheKind.SCALAR_INDEX, InvertedIndexReader::weight);

  /** One partition: its token ids, documents, and list lengths. */
  static final class Partition {
    final int id;
    final TokenFst fst;
    final Map<String, Integer> tokenIds;
    final long[] rowIds;
    final int[] numTokens;
    final int[] lengths;
    final String invertLocation;

    Partition(
        int id,
        TokenFst fst,
        Map<String, Integer> tokenIds,
        long[] rowIds,
        int[] numTokens,
        int[] lengths,
        String invertLocation) {
      this.id = id;
      this.fst = fst;
      this.tokenIds = tokenIds;
      this.rowIds = rowIds;
      this.numTokens = numTokens;
      this.lengths = lengths;
      this.invertLocation = invertLocation;
    }

    /** How many distinct tokens the partition holds. */
    long tokenCount() {
      return fst != null ? fst.size() : tokenIds.size();
    }

    /** The token id of {@code token} in this partition, or -1. */
    int tokenId(String token) {
      if (fst != null) {
        OptionalLong id = fst.get(token);
        return id.isPresent() ? Math.toIntExact(id.getAsLong()) : -1;
      }
      return tokenIds.getOrDefault(token, -1);
    }
  }

  private final String name;
  private final String directory;
  private final FileIO io;
  private final JsonNode params;
  private final PostingBlocks.TailCodec tail;
  private final List<Partition> partitions = new ArrayList<>();

  private InvertedIndexReader(String name, String directory, FileIO io) {
    this.name = name;
    this.directory = directory;
    this.io = io;
    Map<String, String> meta = open("metadata.lance", r -> r.schema().metadata());
    try {
      this.params = JSON.readTree(require(meta, "params"));
      String format = meta.getOrDefault("token_set_format", "arrow");
      if (!format.equals("fst") && !format.equals("arrow")) {
        throw corrupt("metadata.lance", "its token set format \"" + format + "\" is unknown");
      }
      this.tail = PostingBlocks.TailCodec.of(meta.get("posting_tail_codec"));
      JsonNode ids = JSON.readTree(require(meta, "partitions"));
      for (JsonNode id : ids) {
        partitions.add(partition(id.asInt(), format.equals("fst")));
      }
    } catch (IOException | IllegalArgumentException e) {
      throw corrupt("metadata.lance", e.getMessage());
    }
  }

  private String require(Map<String, String> meta, String key) {
    String v = meta.get(key);
    if (v == null) {
      throw corrupt("metadata.lance", "its schema metadata has no \"" + key + "\"");
    }
    return v;
  }

  /** A shared reader of the segment from {@code cache} (the session's). */
  public static InvertedIndexReader cached(
      MemoryCache cache, FileIO io, String directory, IndexSegment segment) {
    return cache.get(
        SEGMENTS,
        new CacheKey(directory, segment.uuid()),
        key -> {
          try {
            return new InvertedIndexReader(segment.name(), directory, io);
          } catch (LancelotException e) {
            throw segment.inContext(e);
          }
        });
  }

  private long weight() {
    long w = 4096;
    for (Partition p : partitions) {
      w += 12L * p.rowIds.length + 4L * p.lengths.length + 48L * p.tokenIds.size();
    }
    return w;
  }

  /** The tokenizer settings the index was built with (Lance's JSON). */
  public JsonNode params() {
    return params;
  }

  public String name() {
    return name;
  }

  List<Partition> partitions() {
    return partitions;
  }

  private Partition partition(int id, boolean fst) {
    String prefix = "part_" + id + "_";
    TokenFst tokenFst = null;
    Map<String, Integer> tokenIds = new HashMap<>();
    if (fst) {
      byte[] bytes =
          open(
              prefix + "tokens.lance",
              r -> {
                try (VectorSchemaRoot root = all(r, List.of("_token_fst_bytes"))) {
                  if (root.getRowCount() != 1) {
                    throw new IllegalArgumentException(
                        "its token set has " + root.getRowCount() + " rows, not 1");
                  }
                  return (byte[]) root.getVector(0).getObject(0);
                }
              });
      try {
        tokenFst = new TokenFst(bytes);
      } catch (IllegalArgumentException e) {
        throw corrupt(prefix + "tokens.lance", e.getMessage());
      }
    } else {
      open(
          prefix + "tokens.lance",
          r -> {
            try (VectorSchemaRoot root = all(r, List.of("_token", "_token_id"))) {
              FieldVector tokens = root.getVector(0);
              UInt4Vector ids = (UInt4Vector) root.getVector(1);
              for (int i = 0; i < root.getRowCount(); i++) {
                tokenIds.put(tokens.getObject(i).toString(), ids.get(i));
              }
              return null;
            }
          });
    }
    long[][] rows = new long[1][];
    int[][] counts = new int[1][];
    open(
        prefix + "docs.lance",
        r -> {
          try (VectorSchemaRoot root = all(r, List.of("_rowid", "_num_tokens"))) {
            UInt8Vector ids = (UInt8Vector) root.getVector(0);
            UInt4Vector n = (UInt4Vector) root.getVector(1);
            int count = root.getRowCount();
            rows[0] = new long[count];
            counts[0] = new int[count];
            for (int i = 0; i < count; i++) {
              rows[0][i] = ids.get(i);
              counts[0][i] = n.get(i);
            }
            return null;
          }
        });
    int[] lengths =
        open(
            prefix + "invert.lance",
            r -> {
              try (VectorSchemaRoot root = all(r, List.of("_length"))) {
                UInt4Vector n = (UInt4Vector) root.getVector(0);
                int[] out = new int[root.getRowCount()];
                for (int i = 0; i < out.length; i++) {
                  out[i] = n.get(i);
                }
                return out;
              }
            });
    return new Partition(
        id, tokenFst, tokenIds, rows[0], counts[0], lengths, prefix + "invert.lance");
  }

  /** The documents and frequencies of token {@code tokenId} of {@code p}: {docs, freqs}. */
  int[][] postings(Partition p, int tokenId) {
    int length = p.lengths[tokenId];
    return open(
        p.invertLocation,
        r -> {
          try (VectorSchemaRoot root =
              r.take(
                  FileProjection.ofNames(r.schema(), List.of("_posting")),
                  new long[] {tokenId},
                  ALLOCATOR)) {
            ListVector list = (ListVector) root.getVector(0);
            List<?> blocks = list.getObject(0);
            byte[][] bytes = new byte[blocks.size()][];
            for (int i = 0; i < bytes.length; i++) {
              bytes[i] = (byte[]) blocks.get(i);
            }
            int[] docs = new int[length];
            int[] freqs = new int[length];
            PostingBlocks.decode(bytes, length, tail, docs, freqs);
            for (int d : docs) {
              if (d < 0 || d >= p.rowIds.length) {
                throw new IllegalArgumentException(
                    "a posting list names document " + d + " of " + p.rowIds.length);
              }
            }
            return new int[][] {docs, freqs};
          }
        });
  }

  private static VectorSchemaRoot all(LanceFileReader r, List<String> columns) {
    int rows = Math.toIntExact(r.numRows());
    long[] all = new long[rows];
    for (int i = 0; i < rows; i++) {
      all[i] = i;
    }
    return r.take(FileProjection.ofNames(r.schema(), columns), all, ALLOCATOR);
  }

  private interface Read<T> {
    T apply(LanceFileReader reader);
  }

  private <T> T open(String file, Read<T> read) {
    String location = directory + "/" + file;
    try (InputFile in = io.newInputFile(location)) {
      return read.apply(LanceFileReader.open(in));
    } catch (LanceFileException | IllegalArgumentException | ClassCastException e) {
      throw corrupt(file, e.getMessage());
    } catch (StorageException e) {
      throw new LancelotException(
          "Cannot read the inverted index "
              + name
              + ": "
              + location
              + " is unreadable ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  private LancelotException corrupt(String file, String why) {
    return new LancelotException(
        "The inverted index " + name + " is corrupt: " + directory + "/" + file + ": " + why);
  }
}
