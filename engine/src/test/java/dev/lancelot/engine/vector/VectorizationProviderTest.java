package dev.lancelot.engine.vector;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VectorizationProviderTest {
  @Test
  void propertyForcesTheImplementation() {
    assertThat(VectorizationProvider.choose("scalar").name()).isEqualTo("scalar");
    assertThat(VectorizationProvider.choose("SIMD").name()).startsWith("simd-");
    assertThat(VectorizationProvider.choose("auto").name()).startsWith("simd-");
    // An unknown value falls back to auto rather than failing start-up.
    assertThat(VectorizationProvider.choose("fastest").name()).startsWith("simd-");
  }

  @Test
  void kernelsAreChosenOnce() {
    assertThat(VectorizationProvider.kernels()).isSameAs(VectorizationProvider.kernels());
  }
}
