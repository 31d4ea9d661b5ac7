package dev.lancelot.engine.internal.arrow;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Copies selected rows of Arrow vectors into new vectors ("gather"), from one source or from
 * several (row {@code i} of the result is row {@code rows[i]} of source {@code sources[i]}).
 * Fixed-width vectors and fixed-size lists of fixed-width values, the hot cases of vector search,
 * are copied with memory copies (runs of consecutive rows in one copy); lists (and maps) and
 * structs are gathered member by member, so that their values take the same paths (Arrow's
 * per-value copy of a list cannot copy every element type, e.g. timestamps with a time zone); other
 * types fall back to Arrow's per-value copy.
 */
public final class ArrowGather {
  private ArrowGather() {}

  /** New root holding rows {@code indices} (in that order) of {@code source}. */
  public static VectorSchemaRoot gather(
      VectorSchemaRoot source, int[] indices, int count, BufferAllocator allocator) {
    List<FieldVector> out = new ArrayList<>(source.getFieldVectors().size());
    for (FieldVector v : source.getFieldVectors()) {
      out.add(gather(v, indices, count, allocator));
    }
    return new VectorSchemaRoot(source.getSchema().getFields(), out, count);
  }

  public static FieldVector gather(
      FieldVector source, int[] indices, int count, BufferAllocator allocator) {
    return gather(new FieldVector[] {source}, null, indices, count, allocator);
  }

  /**
   * Gathers from several vectors of the same type: result row {@code i} is row {@code rows[i]} of
   * {@code sources[sourceOf[i]]} ({@code sourceOf} null means source 0 for every row).
   */
  public static FieldVector gather(
      FieldVector[] sources, int[] sourceOf, int[] rows, int count, BufferAllocator allocator) {
    FieldVector first = sources[0];
    FieldVector target = first.getField().createVector(allocator);
    int width = fixedWidth(sources);
    if (width > 0 && first instanceof BaseFixedWidthVector) {
      ((BaseFixedWidthVector) target).allocateNew(count);
      copyRows(sources, sourceOf, rows, count, width, target, false);
      copyValidity(sources, sourceOf, rows, count, target);
      target.setValueCount(count);
      return target;
    }
    if (width > 0) {
      FixedSizeListVector dst = (FixedSizeListVector) target;
      int listSize = dst.getListSize();
      dst.setInitialCapacity(count);
      dst.allocateNew();
      BaseFixedWidthVector dstChild = (BaseFixedWidthVector) dst.getDataVector();
      dstChild.allocateNew(count * listSize);
      copyRows(sources, sourceOf, rows, count, width, target, true);
      dstChild.getValidityBuffer().setOne(0L, (long) validityBytes(count * listSize));
      dstChild.setValueCount(count * listSize);
      copyValidity(sources, sourceOf, rows, count, target);
      dst.setValueCount(count);
      return target;
    }
    if (all(sources, ListVector.class)) {
      return gatherLists(sources, sourceOf, rows, count, (ListVector) target, allocator);
    }
    if (all(sources, StructVector.class)) {
      return gatherStructs(sources, sourceOf, rows, count, (StructVector) target, allocator);
    }
    target.setInitialCapacity(count);
    target.allocateNew();
    TransferPair[] pairs = new TransferPair[sources.length];
    for (int i = 0; i < count; i++) {
      int s = sourceOf == null ? 0 : sourceOf[i];
      if (pairs[s] == null) {
        pairs[s] = sources[s].makeTransferPair(target);
      }
      pairs[s].copyValueSafe(rows[i], i);
    }
    target.setValueCount(count);
    return target;
  }

  private static boolean all(FieldVector[] sources, Class<?> type) {
    for (FieldVector v : sources) {
      if (v.getClass() != sources[0].getClass() || !type.isInstance(v)) {
        return false;
      }
    }
    return true;
  }

  /** Lists (and maps, which are lists of entries): offsets and validity here, elements gathered. */
  private static FieldVector gatherLists(
      FieldVector[] sources,
      int[] sourceOf,
      int[] rows,
      int count,
      ListVector target,
      BufferAllocator allocator) {
    int total = 0;
    for (int i = 0; i < count; i++) {
      ListVector src = (ListVector) sources[sourceOf == null ? 0 : sourceOf[i]];
      if (!src.isNull(rows[i])) {
        total += offset(src, rows[i] + 1) - offset(src, rows[i]);
      }
    }
    int[] childSourceOf = sourceOf == null ? null : new int[total];
    int[] childRows = new int[total];
    target.setInitialCapacity(Math.max(count, 1));
    target.allocateNew();
    ArrowBuf offsets = target.getOffsetBuffer();
    ArrowBuf validity = target.getValidityBuffer();
    offsets.setInt(0, 0);
    int pos = 0;
    for (int i = 0; i < count; i++) {
      int s = sourceOf == null ? 0 : sourceOf[i];
      ListVector src = (ListVector) sources[s];
      int r = rows[i];
      if (!src.isNull(r)) {
        BitVectorHelper.setBit(validity, i);
        for (int k = offset(src, r), end = offset(src, r + 1); k < end; k++) {
          childRows[pos] = k;
          if (childSourceOf != null) {
            childSourceOf[pos] = s;
          }
          pos++;
        }
      }
      offsets.setInt((long) (i + 1) * Integer.BYTES, pos);
    }
    FieldVector[] children = new FieldVector[sources.length];
    for (int s = 0; s < sources.length; s++) {
      children[s] = ((ListVector) sources[s]).getDataVector();
    }
    try (FieldVector child = gather(children, childSourceOf, childRows, total, allocator)) {
      child.makeTransferPair(target.getDataVector()).transfer();
    }
    target.setLastSet(count - 1);
    target.setValueCount(count);
    return target;
  }

  private static int offset(ListVector v, int index) {
    return v.getOffsetBuffer().getInt((long) index * Integer.BYTES);
  }

  /** Structs: every member gathered with the same rows, validity copied. */
  private static FieldVector gatherStructs(
      FieldVector[] sources,
      int[] sourceOf,
      int[] rows,
      int count,
      StructVector target,
      BufferAllocator allocator) {
    target.setInitialCapacity(Math.max(count, 1));
    target.allocateNew();
    for (String name : target.getChildFieldNames()) {
      FieldVector[] members = new FieldVector[sources.length];
      for (int s = 0; s < sources.length; s++) {
        members[s] = ((StructVector) sources[s]).getChild(name);
      }
      try (FieldVector member = gather(members, sourceOf, rows, count, allocator)) {
        member.makeTransferPair(target.getChild(name)).transfer();
      }
    }
    ArrowBuf validity = target.getValidityBuffer();
    for (int i = 0; i < count; i++) {
      if (!sources[sourceOf == null ? 0 : sourceOf[i]].isNull(rows[i])) {
        BitVectorHelper.setBit(validity, i);
      }
    }
    target.setValueCount(count);
    return target;
  }

  /**
   * Bytes per row when every source is a fixed-width vector, or a fixed-size list of fixed-width
   * values without nulls inside; 0 otherwise.
   */
  private static int fixedWidth(FieldVector[] sources) {
    int width = 0;
    for (FieldVector v : sources) {
      int w;
      if (v instanceof BaseFixedWidthVector fixed && fixed.getTypeWidth() > 0) {
        w = fixed.getTypeWidth();
      } else if (v instanceof FixedSizeListVector fsl
          && fsl.getDataVector() instanceof BaseFixedWidthVector child
          && child.getTypeWidth() > 0
          && child.getNullCount() == 0) {
        w = child.getTypeWidth() * fsl.getListSize();
      } else {
        return 0;
      }
      if (width != 0 && w != width) {
        return 0;
      }
      width = w;
    }
    return width;
  }

  private static ArrowBuf dataOf(FieldVector v, boolean list) {
    return list ? ((FixedSizeListVector) v).getDataVector().getDataBuffer() : v.getDataBuffer();
  }

  /** Copies row bytes; consecutive rows of one source become one memory copy. */
  private static void copyRows(
      FieldVector[] sources,
      int[] sourceOf,
      int[] rows,
      int count,
      int width,
      FieldVector target,
      boolean list) {
    ArrowBuf dst = dataOf(target, list);
    int i = 0;
    while (i < count) {
      int s = sourceOf == null ? 0 : sourceOf[i];
      int start = rows[i];
      int j = i + 1;
      while (j < count && rows[j] == rows[j - 1] + 1 && (sourceOf == null || sourceOf[j] == s)) {
        j++;
      }
      dst.setBytes(
          (long) i * width, dataOf(sources[s], list), (long) start * width, (long) (j - i) * width);
      i = j;
    }
  }

  /**
   * Bytes of a validity buffer for {@code count} values. Not Arrow's {@code
   * BitVectorHelper.getValidityBufferSize}: Arrow 19 (Spark 4.2's) renamed it, and the engine runs
   * on the Arrow of every supported Spark line (D50).
   */
  private static int validityBytes(int count) {
    return (count + 7) / 8;
  }

  private static void copyValidity(
      FieldVector[] sources, int[] sourceOf, int[] rows, int count, FieldVector dst) {
    ArrowBuf dv = dst.getValidityBuffer();
    boolean anyNulls = false;
    for (FieldVector s : sources) {
      anyNulls |= s.getNullCount() > 0;
    }
    if (!anyNulls) {
      dv.setOne(0L, (long) validityBytes(count));
      return;
    }
    dv.setZero(0, validityBytes(count));
    for (int i = 0; i < count; i++) {
      FieldVector src = sources[sourceOf == null ? 0 : sourceOf[i]];
      if (BitVectorHelper.get(src.getValidityBuffer(), rows[i]) != 0) {
        BitVectorHelper.setBit(dv, i);
      }
    }
  }
}
