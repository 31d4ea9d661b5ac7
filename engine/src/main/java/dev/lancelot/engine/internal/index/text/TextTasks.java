package dev.lancelot.engine.internal.index.text;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.index.IndexSegment;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.roaringbitmap.RoaringBitmap;

/**
 * The pieces of a distributed full-text search (decision D71): one unit per partition of every
 * segment of the inverted index, each scored alone with the corpus statistics the coordinator
 * gathered once ({@link TextSearcher.Corpus}), so that the units' local top-k merge into exactly
 * the local search's answer.
 */
public final class TextTasks {
  private TextTasks() {}

  /**
   * One partition of one segment: the segment's uuid, the partition's id, its documents and the
   * fragments they belong to (for explain and placement).
   */
  public record Unit(String segment, int partition, int documents, List<Long> fragments)
      implements Serializable {
    public Unit {
      fragments = List.copyOf(fragments);
    }
  }

  /**
   * One match leaf of a query tree (decision D80): its index, tokens, corpus statistics, operator
   * and boost, and the units of its index. Its tasks return every row they match (no top-k), so the
   * coordinator combines exact leaf scores.
   */
  public record Leaf(
      String index,
      List<String> tokens,
      TextSearcher.Corpus corpus,
      boolean and,
      float boost,
      List<Unit> units)
      implements Serializable {
    public Leaf {
      tokens = List.copyOf(tokens);
      units = List.copyOf(units);
    }
  }

  /** The units of an opened index, segment by segment, partitions in the segment's order. */
  public static List<Unit> units(TextSearcher.Prepared prepared) {
    List<Unit> out = new ArrayList<>();
    for (int s = 0; s < prepared.segments().size(); s++) {
      String uuid = prepared.segments().get(s).uuid().toString();
      for (InvertedIndexReader.Partition p : prepared.readers().get(s).partitions()) {
        out.add(new Unit(uuid, p.id, p.rowIds.length, List.copyOf(fragmentsOf(p))));
      }
    }
    return out;
  }

  private static Set<Long> fragmentsOf(InvertedIndexReader.Partition p) {
    Set<Long> out = new TreeSet<>();
    for (long rowId : p.rowIds) {
      out.add(rowId >>> 32);
    }
    return out;
  }

  /**
   * The best {@code k} rows of {@code unit} for {@code tokens} (query order), scored with {@code
   * corpus}; {@code prefilter}, when given, is applied to the unit's rows before the top {@code k}
   * are chosen.
   */
  public static List<TextSearcher.Hit> run(
      Dataset dataset,
      String index,
      Unit unit,
      List<String> tokens,
      TextSearcher.Corpus corpus,
      boolean and,
      int k,
      BoundPredicate prefilter) {
    if (tokens.isEmpty()) {
      return List.of();
    }
    IndexSegment segment =
        dataset.indexes().segments(index).stream()
            .filter(s -> s.uuid().toString().equals(unit.segment()))
            .findFirst()
            .orElseThrow(
                () ->
                    new InvalidInputException(
                        "Segment "
                            + unit.segment()
                            + " of index "
                            + index
                            + " is not in version "
                            + dataset.version()
                            + " of "
                            + dataset.location()));
    InvertedIndexReader reader = TextSearcher.reader(dataset, segment);
    InvertedIndexReader.Partition partition =
        reader.partitions().stream()
            .filter(p -> p.id == unit.partition())
            .findFirst()
            .orElseThrow(
                () ->
                    new InvalidInputException(
                        "Partition "
                            + unit.partition()
                            + " is not in segment "
                            + unit.segment()
                            + " of index "
                            + index));
    Map<Long, RoaringBitmap> allowed = null;
    if (prefilter != null) {
      Set<Long> live = new HashSet<>();
      for (FragmentInfo f : dataset.fragments()) {
        live.add(f.id());
      }
      List<Long> scanned = new ArrayList<>(fragmentsOf(partition));
      scanned.retainAll(live);
      allowed = scanned.isEmpty() ? Map.of() : TextSearcher.passing(dataset, prefilter, scanned);
    }
    return TextSearcher.score(dataset, reader, partition, tokens, corpus.bm25(), and, k, allowed);
  }
}
