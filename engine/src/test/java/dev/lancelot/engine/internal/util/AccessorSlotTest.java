package dev.lancelot.engine.internal.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.expr.ExprInternals;
import org.junit.jupiter.api.Test;

class AccessorSlotTest {
  /** A public type keeping a member out of its API; registers from its static initializer. */
  static final class Owner {
    static {
      Holder.register("owner's accessor");
    }

    private Owner() {}
  }

  /** The holder engine code calls, as DatasetInternals is for Dataset. */
  static final class Holder {
    static final AccessorSlot<String> SLOT = new AccessorSlot<>(Owner.class);

    private Holder() {}

    static void register(String accessor) {
      SLOT.set(accessor);
    }
  }

  @Test
  void theFirstLookupInitialisesTheOwnerWhichRegisters() {
    assertThat(Holder.SLOT.get()).isEqualTo("owner's accessor");
  }

  @Test
  void noOtherClassCanRegister() {
    assertThatThrownBy(() -> Holder.register("someone else's"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("registered by that class only");
    assertThatThrownBy(() -> ExprInternals.register(p -> null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("BoundPredicate");
  }
}
