package dev.lancelot.engine.internal.expr.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The vectors of one record batch that a bound predicate reads, resolved once, with per-column
 * caches (validity words, decoded keys) shared by all kernels reading the same column. A value
 * nested in a struct is NULL when it or any enclosing struct is NULL. Not thread-safe: one instance
 * per evaluation.
 */
public final class Batch {
  private final int rows;
  private final List<BoundColumn> columns;
  private final FieldVector[] leaves;
  private final List<List<FieldVector>> chains = new ArrayList<>();
  private final long[][] validity;
  private final long[][] keys;

  public Batch(List<BoundColumn> columns, Function<String, FieldVector> topLevel, int rows) {
    if (rows < 0) {
      throw new IllegalArgumentException("row count must be >= 0, got " + rows);
    }
    this.rows = rows;
    this.columns = columns;
    this.leaves = new FieldVector[columns.size()];
    this.validity = new long[columns.size()][];
    this.keys = new long[columns.size()][];
    for (BoundColumn c : columns) {
      List<FieldVector> chain = resolve(c, topLevel);
      chains.add(chain);
      leaves[c.slot()] = chain.get(chain.size() - 1);
    }
  }

  private List<FieldVector> resolve(BoundColumn c, Function<String, FieldVector> topLevel) {
    List<FieldVector> chain = new ArrayList<>(c.path().size());
    FieldVector v = topLevel.apply(c.topLevelName());
    if (v == null) {
      throw new IllegalArgumentException(
          "the batch has no column "
              + c.topLevelName()
              + ", which the filter reads; include every column of referencedColumns()");
    }
    chain.add(v);
    for (int i = 1; i < c.path().size(); i++) {
      if (!(v instanceof NonNullableStructVector struct)) {
        throw new IllegalArgumentException(
            "column " + String.join(".", c.path().subList(0, i)) + " in the batch is not a struct");
      }
      v = struct.getChild(c.path().get(i));
      if (v == null) {
        throw new IllegalArgumentException("the batch has no field " + c.displayName());
      }
      chain.add(v);
    }
    ArrowType expected = c.field().getType();
    ArrowType actual = v.getField().getType();
    if (!expected.equals(actual)) {
      throw new IllegalArgumentException(
          "column "
              + c.displayName()
              + " has type "
              + actual
              + " in the batch, but the filter was bound to type "
              + expected);
    }
    if (v.getValueCount() < rows) {
      throw new IllegalArgumentException(
          "column "
              + c.displayName()
              + " has "
              + v.getValueCount()
              + " values, fewer than the batch's "
              + rows
              + " rows");
    }
    return chain;
  }

  public int rows() {
    return rows;
  }

  public int words() {
    return Bits.words(rows);
  }

  public FieldVector vector(int slot) {
    return leaves[slot];
  }

  /** Rows where the column (and every struct around it) is not NULL. Do not modify. */
  public long[] validity(int slot) {
    long[] v = validity[slot];
    if (v == null) {
      v = Bits.allSet(rows);
      for (FieldVector level : chains.get(slot)) {
        if (level instanceof NullVector) {
          v = new long[Bits.words(rows)];
          break;
        }
        if (level.getNullCount() == 0) {
          continue;
        }
        long[] bits = Bits.read(level.getValidityBuffer(), rows);
        for (int w = 0; w < v.length; w++) {
          v[w] &= bits[w];
        }
      }
      validity[slot] = v;
    }
    return v;
  }

  /** Decoded keys of a numeric or temporal column (see {@link Keys}). Do not modify. */
  public long[] keys(int slot) {
    long[] k = keys[slot];
    if (k == null) {
      k = Keys.decode(leaves[slot], columns.get(slot).kind(), rows);
      keys[slot] = k;
    }
    return k;
  }

  /** A fresh reader of a string or binary column's bytes. */
  public ByteRows bytes(int slot) {
    return ByteRows.of(leaves[slot], columns.get(slot).kind());
  }
}
