package dev.lancelot.engine.arrow;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Copies selected rows of Arrow vectors into new vectors ("gather"). Fixed-width vectors and
 * fixed-size lists of fixed-width values, the hot cases of vector search, are copied with bulk
 * memory copies of contiguous runs; other types fall back to Arrow's per-value copy.
 */
public final class ArrowGather {
  private ArrowGather() {}

  /** New root holding rows {@code indices} (in that order) of {@code source}. */
  public static VectorSchemaRoot gather(VectorSchemaRoot source, int[] indices, int count,
      BufferAllocator allocator) {
    List<FieldVector> out = new ArrayList<>(source.getFieldVectors().size());
    for (FieldVector v : source.getFieldVectors()) {
      out.add(gather(v, indices, count, allocator));
    }
    return new VectorSchemaRoot(source.getSchema().getFields(), out, count);
  }

  public static FieldVector gather(FieldVector source, int[] indices, int count, BufferAllocator allocator) {
    FieldVector target = source.getField().createVector(allocator);
    if (source instanceof BaseFixedWidthVector fixed && fixed.getTypeWidth() > 0) {
      gatherFixed(fixed, (BaseFixedWidthVector) target, indices, count, fixed.getTypeWidth());
      return target;
    }
    if (source instanceof FixedSizeListVector fsl && fsl.getDataVector() instanceof BaseFixedWidthVector child
        && child.getTypeWidth() > 0 && child.getNullCount() == 0) {
      gatherFixedSizeList(fsl, (FixedSizeListVector) target, indices, count, child.getTypeWidth());
      return target;
    }
    target.setInitialCapacity(count);
    target.allocateNew();
    TransferPair pair = source.makeTransferPair(target);
    for (int i = 0; i < count; i++) {
      pair.copyValueSafe(indices[i], i);
    }
    target.setValueCount(count);
    return target;
  }

  private static void gatherFixed(BaseFixedWidthVector src, BaseFixedWidthVector dst, int[] idx, int count,
      int width) {
    dst.allocateNew(count);
    copyRuns(src.getDataBuffer(), dst.getDataBuffer(), idx, count, width);
    copyValidity(src, dst, idx, count);
    dst.setValueCount(count);
  }

  private static void gatherFixedSizeList(FixedSizeListVector src, FixedSizeListVector dst, int[] idx, int count,
      int childWidth) {
    int listSize = src.getListSize();
    dst.setInitialCapacity(count);
    dst.allocateNew();
    BaseFixedWidthVector dstChild = (BaseFixedWidthVector) dst.getDataVector();
    dstChild.allocateNew(count * listSize);
    BaseFixedWidthVector srcChild = (BaseFixedWidthVector) src.getDataVector();
    copyRuns(srcChild.getDataBuffer(), dstChild.getDataBuffer(), idx, count, childWidth * listSize);
    ArrowBuf validity = dstChild.getValidityBuffer();
    validity.setOne(0, BitVectorHelper.getValidityBufferSize(count * listSize));
    dstChild.setValueCount(count * listSize);
    copyValidity(src, dst, idx, count);
    dst.setValueCount(count);
  }

  /** Copies element runs: consecutive source indices become one memory copy. */
  private static void copyRuns(ArrowBuf src, ArrowBuf dst, int[] idx, int count, int width) {
    int i = 0;
    while (i < count) {
      int start = idx[i];
      int j = i + 1;
      while (j < count && idx[j] == idx[j - 1] + 1) {
        j++;
      }
      dst.setBytes((long) i * width, src, (long) start * width, (long) (j - i) * width);
      i = j;
    }
  }

  private static void copyValidity(FieldVector src, FieldVector dst, int[] idx, int count) {
    ArrowBuf dv = dst.getValidityBuffer();
    if (src.getNullCount() == 0) {
      dv.setOne(0, BitVectorHelper.getValidityBufferSize(count));
      return;
    }
    ArrowBuf sv = src.getValidityBuffer();
    dv.setZero(0, BitVectorHelper.getValidityBufferSize(count));
    for (int i = 0; i < count; i++) {
      if (BitVectorHelper.get(sv, idx[i]) != 0) {
        BitVectorHelper.setBit(dv, i);
      }
    }
  }
}
