package dev.lancelot.engine.internal.expr;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.internal.expr.eval.Binder;
import dev.lancelot.engine.internal.util.AccessorSlot;

/**
 * Engine access to {@link BoundPredicate}'s members that are not API (see {@link AccessorSlot}).
 */
public final class ExprInternals {
  /** Implemented by {@link BoundPredicate}. */
  public interface Access {
    Binder.Result binding(BoundPredicate predicate);
  }

  private static final AccessorSlot<Access> SLOT = new AccessorSlot<>(BoundPredicate.class);

  private ExprInternals() {}

  public static void register(Access access) {
    SLOT.set(access);
  }

  /** The kernel tree and the columns a bound predicate reads. */
  public static Binder.Result binding(BoundPredicate predicate) {
    return SLOT.get().binding(predicate);
  }
}
