package dev.lancelot.engine.internal.index.scalar.btree;

import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;

/**
 * A set of row addresses kept per fragment: fragment id (the high 32 bits, unsigned) to a bitmap of
 * row offsets (the low 32 bits). Mutable; not thread-safe. The set operations return new sets and
 * leave their inputs unchanged.
 */
public final class FragmentRows {
  private final TreeMap<Integer, RoaringBitmap> byFragment =
      new TreeMap<>(Integer::compareUnsigned);
  private int lastFragment;
  private RoaringBitmap last;

  public void add(long address) {
    int fragment = (int) (address >>> 32);
    if (last == null || fragment != lastFragment) {
      last = byFragment.computeIfAbsent(fragment, f -> new RoaringBitmap());
      lastFragment = fragment;
    }
    last.add((int) address);
  }

  /** Adds all offsets of {@code offsets} in {@code fragment}. */
  public void addAll(int fragment, RoaringBitmap offsets) {
    if (!offsets.isEmpty()) {
      byFragment.computeIfAbsent(fragment, f -> new RoaringBitmap()).or(offsets);
    }
  }

  public static FragmentRows and(FragmentRows a, FragmentRows b) {
    FragmentRows out = new FragmentRows();
    for (Map.Entry<Integer, RoaringBitmap> e : a.byFragment.entrySet()) {
      RoaringBitmap other = b.byFragment.get(e.getKey());
      if (other != null) {
        out.addAll(e.getKey(), RoaringBitmap.and(e.getValue(), other));
      }
    }
    return out;
  }

  public static FragmentRows or(FragmentRows a, FragmentRows b) {
    FragmentRows out = a.copy();
    b.byFragment.forEach(out::addAll);
    return out;
  }

  public FragmentRows copy() {
    FragmentRows out = new FragmentRows();
    byFragment.forEach((f, bits) -> out.byFragment.put(f, bits.clone()));
    return out;
  }

  /** Drops every fragment not in {@code fragments}. */
  public void retainFragments(RoaringBitmap fragments) {
    Iterator<Integer> it = byFragment.keySet().iterator();
    while (it.hasNext()) {
      if (!fragments.contains(it.next())) {
        it.remove();
      }
    }
  }

  /** Removes {@code offsets} from {@code fragment}. */
  public void removeAll(int fragment, RoaringBitmap offsets) {
    RoaringBitmap bits = byFragment.get(fragment);
    if (bits != null) {
      bits.andNot(offsets);
      if (bits.isEmpty()) {
        byFragment.remove(fragment);
      }
    }
  }

  /** Fragment id to offsets, fragments in ascending (unsigned) order; a read-only view. */
  public SortedMap<Integer, RoaringBitmap> byFragment() {
    return Collections.unmodifiableSortedMap(byFragment);
  }

  public long cardinality() {
    long n = 0;
    for (RoaringBitmap b : byFragment.values()) {
      n += b.getLongCardinality();
    }
    return n;
  }
}
