package dev.lancelot.engine.internal.util;

import java.lang.StackWalker.StackFrame;
import java.util.Optional;

/**
 * Holds the accessor a public API type gives engine code for its members that are not API
 * (docs/architecture.md §2.1). The public type keeps those members package-private and registers an
 * accessor for them from its static initializer, through a holder class in its layer's internal
 * package ({@code DatasetInternals}, {@code IndexInternals}, …); only the owner may register, once.
 *
 * @param <T> the accessor's interface
 */
public final class AccessorSlot<T> {
  private static final StackWalker WALKER =
      StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

  private final Class<?> owner;
  private volatile T accessor;

  public AccessorSlot(Class<?> owner) {
    this.owner = owner;
  }

  /**
   * Registers the accessor. Called by the holder's {@code register}, itself called by the owner's
   * static initializer: the frame two above this one must be the owner's.
   */
  public void set(T value) {
    Optional<Class<?>> caller =
        WALKER.walk(s -> s.skip(2).findFirst().map(StackFrame::getDeclaringClass));
    if (caller.isEmpty() || caller.get() != owner) {
      throw new IllegalStateException(
          "The accessor of " + owner.getName() + " is registered by that class only");
    }
    synchronized (this) {
      if (accessor != null) {
        throw new IllegalStateException(
            "The accessor of " + owner.getName() + " is already registered");
      }
      accessor = value;
    }
  }

  /** The accessor, initialising the owner class first if it has not registered yet. */
  public T get() {
    T a = accessor;
    if (a == null) {
      try {
        Class.forName(owner.getName(), true, owner.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("Cannot load " + owner.getName(), e);
      }
      a = accessor;
      if (a == null) {
        throw new IllegalStateException(owner.getName() + " did not register its accessor");
      }
    }
    return a;
  }
}
