package dev.lancelot.spark;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import scala.collection.mutable.ListBuffer;

/**
 * Java and Scala collections converted with API that Scala 2.12 and 2.13 both have (D53): the
 * connector compiles against both, and Scala 2.12 lacks {@code scala.jdk.javaapi}.
 *
 * <p>The Scala values made here are immutable lists and maps, which are {@code Seq} and {@code Map}
 * on both Scala versions (their {@code Seq} is {@code scala.collection.immutable.Seq} on 2.13 and
 * {@code scala.collection.Seq} on 2.12).
 */
public final class ScalaCollections {
  private ScalaCollections() {}

  /** A Scala list of {@code items}, in their order. */
  public static <T> scala.collection.immutable.List<T> list(Collection<? extends T> items) {
    ListBuffer<T> out = new ListBuffer<>();
    for (T item : items) {
      out.$plus$eq(item);
    }
    return out.toList();
  }

  /** The empty Scala list. */
  public static <T> scala.collection.immutable.List<T> empty() {
    return new ListBuffer<T>().toList();
  }

  /** A Java list of the elements of {@code items}, in their order. */
  public static <T> List<T> toJava(scala.collection.Iterable<? extends T> items) {
    List<T> out = new ArrayList<>();
    scala.collection.Iterator<? extends T> it = items.iterator();
    while (it.hasNext()) {
      out.add(it.next());
    }
    return out;
  }

  /** A Scala immutable map of {@code entries}. */
  @SuppressWarnings("unchecked")
  public static <K, V> scala.collection.immutable.Map<K, V> map(Map<K, V> entries) {
    Object out = scala.collection.immutable.Map$.MODULE$.empty();
    for (Map.Entry<K, V> e : entries.entrySet()) {
      out = ((scala.collection.immutable.Map<K, V>) out).updated(e.getKey(), e.getValue());
    }
    return (scala.collection.immutable.Map<K, V>) out;
  }
}
