package dev.lancelot.engine.io;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Groups byte ranges into fewer, larger requests: ranges whose gap is at most {@code maxGap} bytes
 * are merged, as long as the merged request stays under {@code maxRequest} bytes. Reading a few
 * wasted bytes is far cheaper than another round trip on remote stores.
 */
public final class ReadCoalescer {
  /** Default gap under which two ranges are read together. */
  public static final int DEFAULT_MAX_GAP = 64 * 1024;

  /** Default upper bound of one merged request. */
  public static final int DEFAULT_MAX_REQUEST = 16 * 1024 * 1024;

  /** A merged request and, for each original range it serves, its index in the input list. */
  public record Request(ByteRange range, int[] members) {}

  private ReadCoalescer() {}

  public static List<Request> coalesce(List<ByteRange> ranges, long maxGap, long maxRequest) {
    Integer[] order = new Integer[ranges.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        Comparator.comparingLong((Integer i) -> ranges.get(i).offset())
            .thenComparingLong(i -> ranges.get(i).length()));
    List<Request> out = new ArrayList<>();
    int i = 0;
    while (i < order.length) {
      ByteRange first = ranges.get(order[i]);
      long start = first.offset();
      long end = first.end();
      int j = i + 1;
      while (j < order.length) {
        ByteRange next = ranges.get(order[j]);
        long newEnd = Math.max(end, next.end());
        if (next.offset() - end > maxGap || newEnd - start > maxRequest) {
          break;
        }
        end = newEnd;
        j++;
      }
      int[] members = new int[j - i];
      for (int m = 0; m < members.length; m++) {
        members[m] = order[i + m];
      }
      out.add(new Request(new ByteRange(start, end - start), members));
      i = j;
    }
    return out;
  }
}
