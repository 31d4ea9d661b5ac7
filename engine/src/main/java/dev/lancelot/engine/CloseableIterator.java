package dev.lancelot.engine;

import java.util.Iterator;

/** An iterator over resources; closing it releases whatever it still holds. */
public interface CloseableIterator<T> extends Iterator<T>, AutoCloseable {
  @Override
  void close();
}
