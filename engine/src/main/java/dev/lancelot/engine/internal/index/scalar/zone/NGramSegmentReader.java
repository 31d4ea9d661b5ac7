package dev.lancelot.engine.internal.index.scalar.zone;

import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.scalar.ScalarIndexException;
import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceFileException;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeSegmentReader;
import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import dev.lancelot.engine.internal.index.scalar.btree.FragmentRows;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.schema.LanceField;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * A lance-core 7 n-gram index ({@code ngram_postings.lance}): per trigram a row, {@code tokens}
 * (u32: the trigram's three characters, each {@code 0-9} as 1-10 and {@code a-z} as 11-36, in base
 * 37, first character most significant) and {@code posting_list} (binary: the rows whose text,
 * lower-cased and ASCII-folded, holds the trigram, as a serialized 64-bit Roaring treemap: a u64
 * count of maps, then per map its u32 high half and a portable Roaring bitmap of low halves). Lance
 * keeps only trigrams of ASCII letters and digits.
 *
 * <p>{@code contains(col, 'part')} selects the rows holding every trigram of {@code part} made of
 * three ASCII letters or digits (lower-cased): a row containing {@code part} holds each of them at
 * the same place, whatever Lance's case mapping and folding did to the other characters. A
 * superset, rechecked by the scan. Opening reads the tokens; a search reads only the posting lists
 * it needs.
 */
public final class NGramSegmentReader {
  /** The file's name in lance-core 7. */
  public static final String FILE = "ngram_postings.lance";

  private record CacheKey(String directory, UUID segment) {}

  private static final MemoryCache.Kind<CacheKey, NGramSegmentReader> SEGMENTS =
      new MemoryCache.Kind<>(CacheKind.SCALAR_INDEX, r -> 4096L + 12L * r.rowOf.size());

  private final String indexName;
  private final String location;
  private final String listedIn;
  private final FileIO io;
  private final long size;
  private final Map<Integer, Integer> rowOf = new HashMap<>();

  private NGramSegmentReader(
      String indexName, String directory, String listedIn, FileIO io, List<IndexFile> files) {
    this.indexName = indexName;
    this.location = directory + "/" + FILE;
    this.listedIn = listedIn;
    this.io = io;
    long known = -1;
    for (IndexFile f : files) {
      if (f.getPath().equals(FILE)) {
        known = f.getSizeBytes();
      }
    }
    this.size = known;
    try (InputFile in = open()) {
      LanceFileReader reader = LanceFileReader.open(in);
      List<String> names = reader.schema().fields().stream().map(LanceField::name).toList();
      if (!names.equals(List.of("tokens", "posting_list"))) {
        throw corrupt("its columns are " + names + ", expected [tokens, posting_list]", null);
      }
      int rows = Math.toIntExact(reader.numRows());
      long[] all = new long[rows];
      for (int i = 0; i < rows; i++) {
        all[i] = i;
      }
      try (VectorSchemaRoot root =
          reader.take(
              FileProjection.ofNames(reader.schema(), List.of("tokens")),
              all,
              ZoneSegmentReader.ALLOCATOR)) {
        if (!(root.getVector(0) instanceof UInt4Vector tokens)) {
          throw corrupt("its tokens column is not uint32", null);
        }
        for (int i = 0; i < rows; i++) {
          if (tokens.isNull(i)) {
            throw corrupt("its token in row " + i + " is NULL", null);
          }
          rowOf.put(tokens.get(i), i);
        }
      }
    } catch (LanceFileException e) {
      throw corrupt("it is not a readable Lance file (" + e.getMessage() + ")", e);
    } catch (StorageException e) {
      throw ScalarIndexException.unreadable("n-gram", indexName, location, e);
    }
  }

  /** A shared reader of the segment from {@code cache} (the session's). */
  public static NGramSegmentReader cached(
      MemoryCache cache, FileIO io, String directory, IndexSegment segment) {
    return cache.get(
        SEGMENTS,
        new CacheKey(directory, segment.uuid()),
        key -> {
          try {
            return new NGramSegmentReader(
                segment.name(),
                directory,
                segment.listedIn(),
                io,
                IndexInternals.proto(segment).getFilesList());
          } catch (dev.lancelot.engine.LancelotException e) {
            throw segment.inContext(e);
          }
        });
  }

  /** The trigram tokens of {@code part} an n-gram index holds for every text containing it. */
  public static java.util.Set<Integer> tokens(byte[] part) {
    TreeSet<Integer> out = new TreeSet<>();
    for (int i = 0; i + 3 <= part.length; i++) {
      int token = 0;
      boolean ok = true;
      for (int j = 0; j < 3 && ok; j++) {
        int b = part[i + j] & 0xFF;
        int pos;
        if (b >= '0' && b <= '9') {
          pos = b - '0';
        } else if (b >= 'a' && b <= 'z') {
          pos = b - 'a' + 10;
        } else if (b >= 'A' && b <= 'Z') {
          pos = b - 'A' + 10;
        } else {
          ok = false;
          pos = 0;
        }
        token = token * 37 + pos + 1;
      }
      if (ok) {
        out.add(token);
      }
    }
    return out;
  }

  /** Whether an n-gram index narrows {@code c}: a {@code contains()} with at least one trigram. */
  public static boolean narrows(Condition c) {
    return c instanceof Condition.Substring s && !tokens(s.part()).isEmpty();
  }

  /**
   * The part of {@code c} an n-gram index answers: its narrowing substrings (an AND keeps those, an
   * OR needs all its terms answered); null for none.
   */
  public static Condition answerable(Condition c) {
    return Condition.pruned(c, NGramSegmentReader::narrows);
  }

  /** Trigrams in the segment. */
  public int tokenCount() {
    return rowOf.size();
  }

  /** The rows each condition may select; the page count is the posting lists read. */
  public BTreeSegmentReader.Answer search(List<Condition> conditions) {
    TreeSet<Integer> needed = new TreeSet<>();
    for (Condition c : conditions) {
      collect(c, needed);
    }
    Map<Integer, FragmentRows> lists = read(needed);
    List<FragmentRows> out = new ArrayList<>();
    for (Condition c : conditions) {
      out.add(rows(c, lists));
    }
    return new BTreeSegmentReader.Answer(out, lists.size());
  }

  private void collect(Condition c, java.util.Set<Integer> needed) {
    if (c instanceof Condition.Substring s) {
      for (int token : tokens(s.part())) {
        Integer row = rowOf.get(token);
        if (row != null) {
          needed.add(row);
        }
      }
    } else if (c instanceof Condition.AllOf all) {
      all.terms().forEach(t -> collect(t, needed));
    } else if (c instanceof Condition.AnyOf any) {
      any.terms().forEach(t -> collect(t, needed));
    } else {
      throw new IllegalArgumentException("an n-gram index cannot answer " + c.describe());
    }
  }

  private FragmentRows rows(Condition c, Map<Integer, FragmentRows> lists) {
    if (c instanceof Condition.AllOf all) {
      FragmentRows acc = null;
      for (Condition t : all.terms()) {
        FragmentRows next = rows(t, lists);
        acc = acc == null ? next : FragmentRows.and(acc, next);
      }
      return acc;
    } else if (c instanceof Condition.AnyOf any) {
      FragmentRows acc = new FragmentRows();
      for (Condition t : any.terms()) {
        acc = FragmentRows.or(acc, rows(t, lists));
      }
      return acc;
    }
    FragmentRows acc = null;
    for (int token : tokens(((Condition.Substring) c).part())) {
      Integer row = rowOf.get(token);
      if (row == null) {
        return new FragmentRows(); // a trigram no row holds
      }
      acc = acc == null ? lists.get(row).copy() : FragmentRows.and(acc, lists.get(row));
    }
    return acc;
  }

  private Map<Integer, FragmentRows> read(java.util.Set<Integer> rows) {
    Map<Integer, FragmentRows> out = new HashMap<>();
    if (rows.isEmpty()) {
      return out;
    }
    long[] take = rows.stream().sorted().mapToLong(Integer::longValue).toArray();
    try (InputFile in = open()) {
      LanceFileReader reader = LanceFileReader.open(in);
      try (VectorSchemaRoot root =
          reader.take(
              FileProjection.ofNames(reader.schema(), List.of("posting_list")),
              take,
              ZoneSegmentReader.ALLOCATOR)) {
        if (!(root.getVector(0) instanceof VarBinaryVector bytes)) {
          throw corrupt("its posting_list column is not binary", null);
        }
        for (int i = 0; i < take.length; i++) {
          if (bytes.isNull(i)) {
            throw corrupt("the posting list of row " + take[i] + " is NULL", null);
          }
          out.put((int) take[i], decode(bytes.get(i), take[i]));
        }
      }
    } catch (LanceFileException e) {
      throw corrupt("its posting lists cannot be decoded (" + e.getMessage() + ")", e);
    } catch (StorageException e) {
      throw ScalarIndexException.unreadable("n-gram", indexName, location, e);
    }
    return out;
  }

  private FragmentRows decode(byte[] data, long row) {
    FragmentRows rows = new FragmentRows();
    ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    try {
      long maps = b.getLong();
      if (maps < 0 || maps > b.remaining()) {
        throw corrupt("the posting list of row " + row + " is truncated", null);
      }
      for (long m = 0; m < maps; m++) {
        int high = b.getInt();
        RoaringBitmap low = new RoaringBitmap();
        low.deserialize(b.slice(b.position(), b.remaining()));
        b.position(b.position() + low.serializedSizeInBytes());
        rows.addAll(high, low);
      }
      if (b.hasRemaining()) {
        throw corrupt("the posting list of row " + row + " has trailing bytes", null);
      }
    } catch (java.nio.BufferUnderflowException | IOException | IllegalArgumentException e) {
      throw corrupt("the posting list of row " + row + " cannot be decoded", e);
    }
    return rows;
  }

  private InputFile open() {
    return size >= 0 ? io.newInputFile(location, size) : io.newInputFile(location);
  }

  private ScalarIndexException corrupt(String reason, Throwable cause) {
    return ScalarIndexException.corrupt("n-gram", indexName, location, reason, listedIn, cause);
  }
}
