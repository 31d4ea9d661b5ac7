package dev.lancelot.engine;

import dev.lancelot.engine.internal.arrow.ArrowGather;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.scan.RowAddress;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.roaringbitmap.RoaringBitmap;

/**
 * Random access by row address: groups the addresses by fragment, reads each fragment's rows in
 * ascending offset order (only the pages that hold them), then assembles the result in the order
 * the caller asked for. Deleted rows and unknown fragments are left out.
 */
final class RowTaker {
  private RowTaker() {}

  /** The addresses {@code translate} gives for {@code rowIds}, less the -1s (no live row). */
  static long[] liveAddresses(
      java.util.function.Function<long[], long[]> translate, long[] rowIds) {
    return java.util.Arrays.stream(translate.apply(rowIds)).filter(a -> a != -1).toArray();
  }

  static VectorSchemaRoot take(Dataset dataset, long[] addresses, List<LanceField> fields) {
    BufferAllocator allocator = dataset.context().allocator();
    Map<Long, RoaringBitmap> byFragment = new TreeMap<>();
    for (long a : addresses) {
      byFragment
          .computeIfAbsent(RowAddress.fragment(a), k -> new RoaringBitmap())
          .add(RowAddress.offset(a));
    }
    Map<Long, VectorSchemaRoot> parts = new HashMap<>();
    Map<Long, int[]> offsetsOf = new HashMap<>();
    List<Field> arrowFields = new ArrayList<>();
    fields.forEach(f -> arrowFields.add(f.toArrow()));
    try {
      for (Map.Entry<Long, RoaringBitmap> e : byFragment.entrySet()) {
        DataFragment fragment = dataset.snapshot().fragment(e.getKey()).orElse(null);
        if (fragment == null) {
          continue;
        }
        RoaringBitmap wanted = RoaringBitmap.andNot(e.getValue(), dataset.deletedRows(fragment));
        wanted.remove(fragment.getPhysicalRows(), 0x100000000L);
        if (wanted.isEmpty()) {
          continue;
        }
        int[] offsets = wanted.toArray();
        long[] sorted = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++) {
          sorted[i] = Integer.toUnsignedLong(offsets[i]);
        }
        try (FragmentReader reader = dataset.openFragment(fragment)) {
          parts.put(e.getKey(), reader.take(fields, sorted));
        }
        offsetsOf.put(e.getKey(), offsets);
      }
      // Where each requested row lives: which fragment's result, which row of it.
      List<Long> fragmentOrder = new ArrayList<>(parts.keySet());
      Map<Long, Integer> slot = new HashMap<>();
      for (int i = 0; i < fragmentOrder.size(); i++) {
        slot.put(fragmentOrder.get(i), i);
      }
      int[] sourceOf = new int[addresses.length];
      int[] rowOf = new int[addresses.length];
      int count = 0;
      for (long a : addresses) {
        int at = locate(offsetsOf, a);
        if (at >= 0) {
          sourceOf[count] = slot.get(RowAddress.fragment(a));
          rowOf[count] = at;
          count++;
        }
      }
      List<FieldVector> out = new ArrayList<>();
      for (int c = 0; c < fields.size(); c++) {
        FieldVector[] sources = new FieldVector[fragmentOrder.size()];
        for (int s = 0; s < sources.length; s++) {
          sources[s] = parts.get(fragmentOrder.get(s)).getVector(c);
        }
        if (sources.length == 0) {
          FieldVector empty = arrowFields.get(c).createVector(allocator);
          empty.allocateNew();
          empty.setValueCount(0);
          out.add(empty);
        } else {
          out.add(ArrowGather.gather(sources, sourceOf, rowOf, count, allocator));
        }
      }
      return new VectorSchemaRoot(arrowFields, out, count);
    } finally {
      parts.values().forEach(VectorSchemaRoot::close);
    }
  }

  private static int locate(Map<Long, int[]> offsetsOf, long address) {
    int[] offsets = offsetsOf.get(RowAddress.fragment(address));
    if (offsets == null) {
      return -1;
    }
    int i = Arrays.binarySearch(offsets, RowAddress.offset(address));
    return i >= 0 ? i : -1;
  }
}
