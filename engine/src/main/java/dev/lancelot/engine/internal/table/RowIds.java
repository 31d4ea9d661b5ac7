package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.internal.format.CorruptFileException;
import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.RowIdSequence;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.ExternalFile;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.roaringbitmap.RoaringBitmap;

/**
 * Row ids of one dataset version (F7). Without stable row ids a row's id is its address. With them
 * (reader flag 2) each fragment carries a sequence of ids, one per physical row, and a row's id
 * stays the same when compaction or an update moves it; indexes of such datasets store ids.
 *
 * <p>{@link #idOf} maps an address to its id through the fragment's sequence; {@link #addressOf}
 * maps an id to the address of the <em>live</em> row holding it (an updated row's id is also
 * listed, deleted, in the fragment it came from). The dataset-wide id index is built on first use
 * from every fragment's sequence and deletion vector. Thread-safe.
 */
public final class RowIds {
  private final boolean stable;
  private final List<DataFragment> fragments;
  private final Function<DataFragment, RoaringBitmap> deletions;
  private final FileIO io;
  private final DatasetPaths paths;
  private final String manifestLocation;
  private final Map<Long, RowIdSequence> sequences = new ConcurrentHashMap<>();
  private final Map<Long, DataFragment> byId = new ConcurrentHashMap<>();
  private volatile Piece[] pieces;

  /** Prefix maximum of {@link Piece#max} over {@link #pieces} (unsigned), for overlap walks. */
  private volatile long[] maxUpTo;

  /** Ids {@code segment} of fragment {@code fragment}, whose first row is at {@code offset}. */
  private record Piece(
      long fragment, long offset, RowIdSequence.Segment segment, long min, long max) {}

  public RowIds(Snapshot snapshot, FileIO io, Function<DataFragment, RoaringBitmap> deletions) {
    this.stable = usesStableRowIds(snapshot.manifest().getReaderFeatureFlags());
    this.fragments = snapshot.fragments();
    this.deletions = deletions;
    this.io = io;
    this.paths = snapshot.paths();
    this.manifestLocation = snapshot.entry().location();
    fragments.forEach(f -> byId.put(f.getId(), f));
  }

  public static boolean usesStableRowIds(long readerFlags) {
    return (readerFlags & FeatureFlags.STABLE_ROW_IDS) != 0;
  }

  /** Whether ids are stable (and so differ from addresses). */
  public boolean stable() {
    return stable;
  }

  /** The id sequence of {@code fragment}; only for datasets with stable row ids. */
  public RowIdSequence sequence(DataFragment fragment) {
    if (!stable) {
      throw new IllegalStateException("the dataset does not use stable row ids");
    }
    return sequences.computeIfAbsent(fragment.getId(), id -> load(fragment));
  }

  private RowIdSequence load(DataFragment f) {
    String where = "the row id sequence of fragment " + f.getId() + " in " + manifestLocation;
    RowIdSequence seq;
    switch (f.getRowIdSequenceCase()) {
      case INLINE_ROW_IDS:
        seq = RowIdSequence.parse(f.getInlineRowIds().toByteArray(), where);
        break;
      case EXTERNAL_ROW_IDS:
        seq = RowIdSequence.parse(external(f.getExternalRowIds()), where);
        break;
      default:
        throw new CorruptFileException(
            manifestLocation,
            "the dataset uses stable row ids but fragment "
                + f.getId()
                + " has no row id sequence");
    }
    if (seq.length() != f.getPhysicalRows()) {
      throw new CorruptFileException(
          manifestLocation,
          "fragment "
              + f.getId()
              + " has "
              + f.getPhysicalRows()
              + " rows but its row id sequence lists "
              + seq.length()
              + " ids");
    }
    return seq;
  }

  private byte[] external(ExternalFile file) {
    return readExternal(file, "row id");
  }

  /**
   * The bytes of a sequence a fragment keeps outside the manifest ({@code what}: "row id", "row
   * version"): {@code size} bytes at {@code offset} of {@code path}, relative to the dataset root.
   */
  public byte[] readExternal(ExternalFile file, String what) {
    String path = file.getPath();
    paths.resolveInside("_", path, what + " file"); // refuses paths escaping the root
    String location = paths.root() + "/" + path;
    if (file.getSize() > Integer.MAX_VALUE) {
      throw new CorruptFileException(
          location, "a " + what + " sequence of " + file.getSize() + " bytes");
    }
    try (InputFile in = io.newInputFile(location)) {
      ByteBuffer b = in.read(file.getOffset(), (int) file.getSize());
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    }
  }

  /** The id of the row at {@code address} (the address itself without stable row ids). */
  public long idOf(long address) {
    if (!stable) {
      return address;
    }
    DataFragment f = byId.get(address >>> 32);
    if (f == null) {
      throw new IllegalArgumentException(
          "row address " + Long.toUnsignedString(address) + " names no fragment of the version");
    }
    return sequence(f).get(address & 0xFFFFFFFFL);
  }

  /** The ids of {@code addresses}, in order. */
  public long[] idsOf(long[] addresses) {
    if (!stable) {
      return addresses.clone();
    }
    long[] out = new long[addresses.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = idOf(addresses[i]);
    }
    return out;
  }

  /**
   * The address of the live row whose id is {@code id}, or -1 when no live row has it (deleted,
   * never written, or of a fragment no longer in the version). Without stable row ids the id is the
   * address, returned as is (liveness is not checked).
   */
  public long addressOf(long id) {
    if (!stable) {
      return id;
    }
    Piece[] ps = pieces();
    long[] upTo = maxUpTo;
    // last piece starting at or before id
    int lo = 0;
    int hi = ps.length - 1;
    int at = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(ps[mid].min(), id) <= 0) {
        at = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    for (int i = at; i >= 0 && Long.compareUnsigned(upTo[i], id) >= 0; i--) {
      Piece p = ps[i];
      if (Long.compareUnsigned(p.max(), id) < 0) {
        continue;
      }
      int pos = p.segment().position(id);
      if (pos < 0) {
        continue;
      }
      long offset = p.offset() + pos;
      RoaringBitmap deleted = deletions.apply(byId.get(p.fragment()));
      if (!deleted.contains((int) offset)) {
        return (p.fragment() << 32) | offset;
      }
    }
    return -1;
  }

  /** The addresses of the live rows of {@code ids}, in order; -1 where there is none. */
  public long[] addressesOf(long[] ids) {
    long[] out = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = addressOf(ids[i]);
    }
    return out;
  }

  private Piece[] pieces() {
    Piece[] ps = pieces;
    if (ps == null) {
      synchronized (this) {
        ps = pieces;
        if (ps == null) {
          List<Piece> all = new ArrayList<>();
          for (DataFragment f : fragments) {
            long offset = 0;
            for (RowIdSequence.Segment s : sequence(f).segments()) {
              if (s.length() > 0) {
                all.add(new Piece(f.getId(), offset, s, s.min(), s.max()));
              }
              offset += s.length();
            }
          }
          all.sort(Comparator.comparing(Piece::min, Long::compareUnsigned));
          ps = all.toArray(new Piece[0]);
          long[] upTo = new long[ps.length];
          for (int i = 0; i < ps.length; i++) {
            long m = ps[i].max();
            upTo[i] = i == 0 || Long.compareUnsigned(m, upTo[i - 1]) > 0 ? m : upTo[i - 1];
          }
          maxUpTo = upTo;
          pieces = ps;
        }
      }
    }
    return ps;
  }

  /** Ascending copy of {@code values} (unsigned order). */
  public static long[] sortedUnsigned(long[] values) {
    long[] out = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i] ^ Long.MIN_VALUE;
    }
    Arrays.sort(out);
    for (int i = 0; i < out.length; i++) {
      out[i] ^= Long.MIN_VALUE;
    }
    return out;
  }
}
