package dev.lancelot.engine.internal.index.scalar.zone;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** XXH64 against the algorithm's published reference values (seed 0). */
class XxHash64Test {
  private static long hash(String s) {
    return XxHash64.hash(s.getBytes(StandardCharsets.US_ASCII), 0);
  }

  @Test
  void shortInputs() {
    assertThat(hash("")).isEqualTo(0xEF46DB3751D8E999L);
    assertThat(hash("a")).isEqualTo(0xD24EC4F1A98C6E5BL);
    assertThat(hash("abc")).isEqualTo(0x44BC2CF5AD770999L);
  }

  @Test
  void everyLengthDiffersAndIsStable() {
    byte[] data = new byte[100];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 31 + 7);
    }
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (int n = 0; n <= data.length; n++) {
      byte[] prefix = java.util.Arrays.copyOf(data, n);
      long h = XxHash64.hash(prefix, 0);
      assertThat(XxHash64.hash(prefix.clone(), 0)).isEqualTo(h);
      assertThat(seen.add(h)).as("length %d", n).isTrue();
    }
  }
}
