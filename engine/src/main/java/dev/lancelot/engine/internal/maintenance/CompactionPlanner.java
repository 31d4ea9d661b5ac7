package dev.lancelot.engine.internal.maintenance;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Chooses the groups of fragments a compaction rewrites, with Lance 7's rules ({@code
 * plan_compaction} in {@code rust/lance/src/dataset/optimize.rs}).
 *
 * <p>Walking the fragments in manifest order, a fragment is a candidate "by itself" when its share
 * of deleted rows exceeds the threshold, or "with neighbours" when it has fewer physical rows than
 * the target. Consecutive candidates covered by the same set of index segments form a bin; a bin of
 * one fragment that is only small is left alone (rewriting it alone would not make it larger). Each
 * bin is cut into groups of at least the target number of live rows, the remainder joining the last
 * group. Fragments covered by an index segment this engine cannot rewrite (full-text indexes) are
 * never candidates, so that segment stays valid; zone maps and bloom filters are left as they are
 * and lose the compacted fragments, as in Lance (decision D77).
 */
public final class CompactionPlanner {
  private CompactionPlanner() {}

  /** A fragment and what the planner learnt about it. */
  record Candidate(DataFragment fragment, boolean byItself, long liveRows, Set<Integer> segments) {}

  /** The groups to rewrite, each a list of fragments adjacent in manifest order. */
  public static List<List<DataFragment>> plan(
      List<DataFragment> fragments, List<IndexSegment> segments, CompactionOptions options) {
    return plan(fragments, segments, options, false);
  }

  /**
   * As {@link #plan(List, List, CompactionOptions)}; with {@code stableRowIds} fragments covered by
   * a zone map or bloom filter stay out (the commit would move such a segment's coverage to the new
   * fragments, as for segments keyed by row id, and what Lance does with zones there is not
   * established).
   */
  public static List<List<DataFragment>> plan(
      List<DataFragment> fragments,
      List<IndexSegment> segments,
      CompactionOptions options,
      boolean stableRowIds) {
    List<List<Candidate>> bins = new ArrayList<>();
    List<Candidate> bin = null;
    for (DataFragment f : fragments) {
      long physical = f.getPhysicalRows();
      long deleted = f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0;
      double deletedShare = physical > 0 ? (double) deleted / physical : 0.0;
      Set<Integer> covering = new TreeSet<>();
      boolean remappable = true;
      for (int i = 0; i < segments.size(); i++) {
        IndexSegment s = segments.get(i);
        if (s.fragments().contains((int) f.getId())) {
          covering.add(i);
          remappable &=
              IndexRemapper.canRemap(s.type())
                  || (!stableRowIds && IndexRemapper.keptAsIs(s.type()));
        }
      }
      Candidate c = null;
      if (remappable
          && options.materializesDeletions()
          && deletedShare > options.materializeDeletionsThreshold()) {
        c = new Candidate(f, true, physical - deleted, covering);
      } else if (remappable && physical < options.targetRowsPerFragment()) {
        c = new Candidate(f, false, physical - deleted, covering);
      }
      if (c == null) {
        if (bin != null) {
          bins.add(bin);
          bin = null;
        }
      } else if (bin != null && bin.get(0).segments().equals(covering)) {
        bin.add(c);
      } else {
        if (bin != null) {
          bins.add(bin);
        }
        bin = new ArrayList<>(List.of(c));
      }
    }
    if (bin != null) {
      bins.add(bin);
    }
    List<List<DataFragment>> groups = new ArrayList<>();
    for (List<Candidate> b : bins) {
      if (b.size() == 1 && !b.get(0).byItself()) {
        continue;
      }
      groups.addAll(splitForSize(b, options.targetRowsPerFragment()));
    }
    return groups;
  }

  /**
   * Cuts a bin into groups of at least {@code minRows} live rows; the remainder joins the last
   * group.
   */
  private static List<List<DataFragment>> splitForSize(List<Candidate> bin, long minRows) {
    List<List<DataFragment>> out = new ArrayList<>();
    int start = 0;
    while (start < bin.size()) {
      int end = start;
      long rows = 0;
      while (rows < minRows && end < bin.size()) {
        rows += bin.get(end).liveRows();
        end++;
      }
      long remaining = 0;
      for (int i = end; i < bin.size(); i++) {
        remaining += bin.get(i).liveRows();
      }
      if (end < bin.size() && remaining >= minRows) {
        out.add(fragments(bin, start, end));
        start = end;
      } else {
        out.add(fragments(bin, start, bin.size()));
        break;
      }
    }
    return out;
  }

  private static List<DataFragment> fragments(List<Candidate> bin, int from, int to) {
    List<DataFragment> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(bin.get(i).fragment());
    }
    return out;
  }
}
