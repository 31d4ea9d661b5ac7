package dev.lancelot.engine.internal.index.scalar.zone;

import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.expr.eval.Keys;
import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import dev.lancelot.engine.internal.index.scalar.btree.PageEntry;
import dev.lancelot.engine.internal.index.scalar.btree.ValueCodec;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A lance-core 7 zone map ({@code zonemap.lance}): per zone the smallest and largest non-NULL value
 * ({@code min}, {@code max}, of the column's type; both NULL when the zone holds no value), the
 * NULL count and, for floats, the NaN count. Each zone is tested as a BTree page is, with {@link
 * Condition#mayMatch}: comparisons, ranges, {@code IN}, {@code IS [NOT] NULL} and their negations
 * skip the zones their values cannot fall in.
 *
 * <p>Float bounds are widened so the engine's total order ({@code -0.0 < +0.0}, NaNs at the ends)
 * never excludes a value Lance's statistics ordered differently: a zero bound covers both zeros,
 * and a zone holding NaNs is unbounded.
 */
public final class ZoneMapSegmentReader extends ZoneSegmentReader {
  /** The file's name in lance-core 7. */
  public static final String FILE = "zonemap.lance";

  private static final List<String> COLUMNS =
      List.of("min", "max", "null_count", "nan_count", "fragment_id", "zone_start", "zone_length");

  private final ColumnKind columnKind;
  private PageEntry[] zones = new PageEntry[0];

  ZoneMapSegmentReader(String indexName, String directory, String listedIn, ColumnKind kind) {
    super("zone-map", indexName, directory + "/" + FILE, listedIn);
    this.columnKind = kind;
  }

  static boolean supports(ColumnKind kind) {
    return ValueCodec.supports(kind);
  }

  @Override
  String fileName() {
    return FILE;
  }

  @Override
  List<String> expectedColumns() {
    return COLUMNS;
  }

  @Override
  void readZones(LanceSchema schema, VectorSchemaRoot root, ArrowType valueType) {
    for (int c = 0; c < 2; c++) {
      ArrowType stored = schema.fields().get(c).arrowType();
      if (!stored.equals(valueType)) {
        throw corrupt(
            "its column " + COLUMNS.get(c) + " is " + stored + ", the indexed column " + valueType,
            null);
      }
    }
    int rows = root.getRowCount();
    FieldVector min = root.getVector("min");
    FieldVector max = root.getVector("max");
    long[] nulls = unsigned(root, "null_count", rows);
    long[] nans = unsigned(root, "nan_count", rows);
    boolean[] minNull = ValueCodec.nulls(min, rows);
    boolean[] maxNull = ValueCodec.nulls(max, rows);
    boolean keys = ValueCodec.usesKeys(columnKind);
    long[] minKeys = keys ? ValueCodec.keys(min, columnKind, rows) : null;
    long[] maxKeys = keys ? ValueCodec.keys(max, columnKind, rows) : null;
    byte[][] minBytes = keys ? null : ValueCodec.bytes(min, columnKind, rows);
    byte[][] maxBytes = keys ? null : ValueCodec.bytes(max, columnKind, rows);
    boolean floats =
        columnKind == ColumnKind.FLOAT16
            || columnKind == ColumnKind.FLOAT32
            || columnKind == ColumnKind.FLOAT64;
    zones = new PageEntry[rows];
    for (int z = 0; z < rows; z++) {
      if (minNull[z] != maxNull[z]) {
        throw corrupt("zone " + z + " has only one of min and max", null);
      }
      int nullCount = (int) Math.min(Integer.MAX_VALUE, nulls[z]);
      if (minNull[z]) {
        // No value in the zone: only NULL (or NaN) rows.
        zones[z] =
            nans[z] > 0
                ? new PageEntry(z, nullCount, true, false, 0, Long.MAX_VALUE, null, null)
                : new PageEntry(z, nullCount, true, true, 0, 0, null, null);
        continue;
      }
      if (keys) {
        long lo = minKeys[z];
        long hi = maxKeys[z];
        if (floats) {
          lo = Math.min(lo, negativeZero(lo));
          hi = Math.max(hi, positiveZero(hi));
        }
        if (lo > hi) {
          throw corrupt("zone " + z + " has min above max", null);
        }
        boolean unbounded = floats && nans[z] > 0;
        zones[z] =
            new PageEntry(
                z, nullCount, unbounded, false, lo, unbounded ? Long.MAX_VALUE : hi, null, null);
      } else {
        zones[z] = new PageEntry(z, nullCount, false, false, 0, 0, minBytes[z], maxBytes[z]);
      }
    }
  }

  /** The key of -0.0 if {@code key} is a zero of the column's float type, else {@code key}. */
  private long negativeZero(long key) {
    return isZero(key) ? zero(true) : key;
  }

  private long positiveZero(long key) {
    return isZero(key) ? zero(false) : key;
  }

  private boolean isZero(long key) {
    return key == zero(true) || key == zero(false);
  }

  private long zero(boolean negative) {
    return switch (columnKind) {
      case FLOAT16 -> Keys.ofHalf(negative ? (short) 0x8000 : 0);
      case FLOAT32 -> Keys.ofFloat(negative ? -0.0f : 0.0f);
      default -> Keys.ofDouble(negative ? -0.0 : 0.0);
    };
  }

  @Override
  boolean mayMatch(int zone, Condition c) {
    return c.mayMatch(zones[zone]);
  }

  @Override
  long zoneBytes() {
    long bytes = 64L * zones.length;
    for (PageEntry e : zones) {
      bytes += e.minBytes() == null ? 0 : e.minBytes().length;
      bytes += e.maxBytes() == null ? 0 : e.maxBytes().length;
    }
    return bytes;
  }
}
